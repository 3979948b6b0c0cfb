//! Month names as Oracle prints them in snapshot times.
//!
//! AWR and Statspack print snapshot times with the `Mon` date format
//! element (`04-Feb-23 19:00:39`), and `Mon` is spelled in the session's
//! `NLS_DATE_LANGUAGE`: a report taken in a German session reads
//! `04-Mär-23`, a French one `04-déc.-23`. Without those names a report
//! has no snapshot time, and `dbio awr A B C` can only order it by
//! snapshot id. The table holds the abbreviations and full names of the
//! languages DBAs meet most (English, German, French, Spanish, Italian,
//! Portuguese, Dutch), as Oracle's locale data spells them (Oracle
//! Database Globalization Support Guide, "Locale Data": the `Mon` and
//! `Month` elements per language), plus the spellings seen in the wild:
//! `Mrz` (German, as glibc and Java spell it), `Sept` (English and
//! Spanish), `Jän`/`Jänner` (Austrian German). Chinese, Japanese and
//! Korean print the month's number (`8月`, `8월`), blank-padded
//! (`28-8月 -17`, as a real 11.2 XE report prints it).
//!
//! Matching is case-insensitive, ignores a trailing dot (`déc.`, `Okt.`)
//! and folds the accents away (`dec`, `fevr`, `aout`, `marz`), so a report
//! whose Latin-1 bytes were read back as Latin-1 or whose accents were
//! lost in an e-mail reads the same. No spelling names two months in the
//! table's languages, so no guess is ever made between them.

/// Spellings (lower case, accents folded, no trailing dot) and the month
/// they name, 1 to 12.
const NAMES: &[(&str, u32)] = &[
    // English.
    ("jan", 1),
    ("feb", 2),
    ("mar", 3),
    ("apr", 4),
    ("may", 5),
    ("jun", 6),
    ("jul", 7),
    ("aug", 8),
    ("sep", 9),
    ("sept", 9),
    ("oct", 10),
    ("nov", 11),
    ("dec", 12),
    ("january", 1),
    ("february", 2),
    ("march", 3),
    ("april", 4),
    ("june", 6),
    ("july", 7),
    ("august", 8),
    ("september", 9),
    ("october", 10),
    ("november", 11),
    ("december", 12),
    // German (JAN FEB MÄR APR MAI JUN JUL AUG SEP OKT NOV DEZ).
    ("mrz", 3),
    ("mai", 5),
    ("okt", 10),
    ("dez", 12),
    ("januar", 1),
    ("janner", 1),
    ("februar", 2),
    ("marz", 3),
    ("maerz", 3),
    ("juni", 6),
    ("juli", 7),
    ("oktober", 10),
    ("dezember", 12),
    // French (JANV. FÉVR. MARS AVR. MAI JUIN JUIL. AOÛT SEPT. OCT. NOV. DÉC.).
    ("janv", 1),
    ("fevr", 2),
    ("fev", 2),
    ("mars", 3),
    ("avr", 4),
    ("juin", 6),
    ("juil", 7),
    ("aout", 8),
    ("janvier", 1),
    ("fevrier", 2),
    ("avril", 4),
    ("juillet", 7),
    ("septembre", 9),
    ("octobre", 10),
    ("novembre", 11),
    ("decembre", 12),
    // Spanish (ENE FEB MAR ABR MAY JUN JUL AGO SEP OCT NOV DIC).
    ("ene", 1),
    ("abr", 4),
    ("ago", 8),
    ("dic", 12),
    ("enero", 1),
    ("febrero", 2),
    ("marzo", 3),
    ("abril", 4),
    ("mayo", 5),
    ("junio", 6),
    ("julio", 7),
    ("agosto", 8),
    ("septiembre", 9),
    ("setiembre", 9),
    ("octubre", 10),
    ("noviembre", 11),
    ("diciembre", 12),
    // Italian (GEN FEB MAR APR MAG GIU LUG AGO SET OTT NOV DIC).
    ("gen", 1),
    ("mag", 5),
    ("giu", 6),
    ("lug", 7),
    ("set", 9),
    ("ott", 10),
    ("gennaio", 1),
    ("febbraio", 2),
    ("aprile", 4),
    ("maggio", 5),
    ("giugno", 6),
    ("luglio", 7),
    ("settembre", 9),
    ("ottobre", 10),
    ("dicembre", 12),
    // Portuguese and Brazilian Portuguese (JAN FEV MAR ABR MAI JUN JUL AGO
    // SET OUT NOV DEZ).
    ("out", 10),
    ("janeiro", 1),
    ("fevereiro", 2),
    ("marco", 3),
    ("maio", 5),
    ("junho", 6),
    ("julho", 7),
    ("setembro", 9),
    ("outubro", 10),
    ("novembro", 11),
    ("dezembro", 12),
    // Dutch (JAN FEB MRT APR MEI JUN JUL AUG SEP OKT NOV DEC).
    ("mrt", 3),
    ("mei", 5),
    ("januari", 1),
    ("februari", 2),
    ("maart", 3),
    ("augustus", 8),
];

/// A letter with its accent folded away (`ä` → `a`, `é` → `e`, `û` → `u`,
/// `ç` → `c`), lower-cased; other characters lower-cased.
fn fold(c: char) -> char {
    match c {
        'à' | 'á' | 'â' | 'ã' | 'ä' | 'å' | 'À' | 'Á' | 'Â' | 'Ã' | 'Ä' | 'Å' => 'a',
        'è' | 'é' | 'ê' | 'ë' | 'È' | 'É' | 'Ê' | 'Ë' => 'e',
        'ì' | 'í' | 'î' | 'ï' | 'Ì' | 'Í' | 'Î' | 'Ï' => 'i',
        'ò' | 'ó' | 'ô' | 'õ' | 'ö' | 'Ò' | 'Ó' | 'Ô' | 'Õ' | 'Ö' => 'o',
        'ù' | 'ú' | 'û' | 'ü' | 'Ù' | 'Ú' | 'Û' | 'Ü' => 'u',
        'ç' | 'Ç' => 'c',
        'ñ' | 'Ñ' => 'n',
        c => c.to_ascii_lowercase(),
    }
}

/// The month (1 to 12) a name printed by Oracle's `Mon` or `Month` names
/// (`Feb`, `Mär`, `déc.`, `dic`, `Oktober`), or `None`.
pub fn month(name: &str) -> Option<u32> {
    let name = name.trim().trim_end_matches('.');
    // The longest spelling in the table is 10 letters (`septiembre`).
    if name.is_empty() || name.chars().count() > 12 {
        return None;
    }
    let key: String = name.chars().map(fold).collect();
    // Simplified and traditional Chinese and Japanese print the month's
    // number and 月 (`28-8月 -17`), Korean its number and 월.
    if let Some(n) = key.strip_suffix('月').or_else(|| key.strip_suffix('월')) {
        return n.parse().ok().filter(|m| (1..=12).contains(m));
    }
    NAMES.iter().find(|(n, _)| *n == key).map(|&(_, m)| m)
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Every month of a language, in calendar order.
    fn all(names: [&str; 12]) {
        for (i, n) in names.iter().enumerate() {
            assert_eq!(month(n), Some(i as u32 + 1), "{n}");
            assert_eq!(month(&n.to_uppercase()), Some(i as u32 + 1), "{n}");
        }
    }

    #[test]
    fn english_months() {
        all([
            "Jan", "Feb", "Mar", "Apr", "May", "Jun", "Jul", "Aug", "Sep", "Oct", "Nov", "Dec",
        ]);
        all([
            "January",
            "February",
            "March",
            "April",
            "May",
            "June",
            "July",
            "August",
            "September",
            "October",
            "November",
            "December",
        ]);
        assert_eq!(month("Sept"), Some(9));
    }

    #[test]
    fn german_months() {
        all([
            "Jan", "Feb", "Mär", "Apr", "Mai", "Jun", "Jul", "Aug", "Sep", "Okt", "Nov", "Dez",
        ]);
        all([
            "Januar",
            "Februar",
            "März",
            "April",
            "Mai",
            "Juni",
            "Juli",
            "August",
            "September",
            "Oktober",
            "November",
            "Dezember",
        ]);
        assert_eq!(month("Okt."), Some(10));
        assert_eq!(month("Mrz"), Some(3));
        assert_eq!(month("Jän"), Some(1));
        assert_eq!(month("MÄR"), Some(3));
    }

    #[test]
    fn french_months() {
        all([
            "janv.", "févr.", "mars", "avr.", "mai", "juin", "juil.", "août", "sept.", "oct.",
            "nov.", "déc.",
        ]);
        all([
            "janvier",
            "février",
            "mars",
            "avril",
            "mai",
            "juin",
            "juillet",
            "août",
            "septembre",
            "octobre",
            "novembre",
            "décembre",
        ]);
        // Without the dot, and with the accents lost.
        assert_eq!(month("déc"), Some(12));
        assert_eq!(month("DEC."), Some(12));
        assert_eq!(month("fevr"), Some(2));
        assert_eq!(month("AOUT"), Some(8));
    }

    #[test]
    fn spanish_months() {
        all([
            "ene", "feb", "mar", "abr", "may", "jun", "jul", "ago", "sep", "oct", "nov", "dic",
        ]);
        all([
            "enero",
            "febrero",
            "marzo",
            "abril",
            "mayo",
            "junio",
            "julio",
            "agosto",
            "septiembre",
            "octubre",
            "noviembre",
            "diciembre",
        ]);
        assert_eq!(month("dic."), Some(12));
        assert_eq!(month("sept."), Some(9));
    }

    #[test]
    fn italian_months() {
        all([
            "gen", "feb", "mar", "apr", "mag", "giu", "lug", "ago", "set", "ott", "nov", "dic",
        ]);
        all([
            "gennaio",
            "febbraio",
            "marzo",
            "aprile",
            "maggio",
            "giugno",
            "luglio",
            "agosto",
            "settembre",
            "ottobre",
            "novembre",
            "dicembre",
        ]);
    }

    #[test]
    fn portuguese_months() {
        all([
            "jan", "fev", "mar", "abr", "mai", "jun", "jul", "ago", "set", "out", "nov", "dez",
        ]);
        all([
            "janeiro",
            "fevereiro",
            "março",
            "abril",
            "maio",
            "junho",
            "julho",
            "agosto",
            "setembro",
            "outubro",
            "novembro",
            "dezembro",
        ]);
    }

    #[test]
    fn dutch_months() {
        all([
            "jan", "feb", "mrt", "apr", "mei", "jun", "jul", "aug", "sep", "okt", "nov", "dec",
        ]);
        all([
            "januari",
            "februari",
            "maart",
            "april",
            "mei",
            "juni",
            "juli",
            "augustus",
            "september",
            "oktober",
            "november",
            "december",
        ]);
    }

    #[test]
    fn chinese_japanese_and_korean_months() {
        assert_eq!(month("8月"), Some(8));
        assert_eq!(month("12月"), Some(12));
        assert_eq!(month("3월"), Some(3));
        assert_eq!(month("13月"), None);
        assert_eq!(month("月"), None);
    }

    #[test]
    fn no_spelling_names_two_months_and_others_name_none() {
        for (a, m) in NAMES {
            for (b, n) in NAMES {
                assert!(a != b || m == n, "{a} names months {m} and {n}");
            }
        }
        for w in ["", ".", "Foo", "ma", "2023", "Mär-", "Januaryy", "Xyz."] {
            assert_eq!(month(w), None, "{w}");
        }
    }
}
