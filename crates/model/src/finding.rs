//! Findings: the plain-words conclusions dbio draws from a result.
//!
//! A finding is data, not a sentence pasted into a list: the rule that drew
//! it, what it is about, how much it matters, the numbers it rests on (with
//! their units) and where the rule comes from. The rules themselves live in
//! `dbio-report` (`findings/`), as pure functions of the result model; this
//! crate only holds the type, because every result carries its findings and
//! the model cannot depend on the crate that draws them.
//!
//! Results written before findings existed have a `conclusions` list of
//! strings; such a string reads back as an `info` finding with the rule
//! `legacy`, so an old result still renders with `dbio report --from`.

use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

/// How much a finding matters to the reader.
#[derive(
    Debug,
    Clone,
    Copy,
    Default,
    PartialEq,
    Eq,
    PartialOrd,
    Ord,
    Hash,
    Serialize,
    Deserialize,
    JsonSchema,
)]
#[serde(rename_all = "snake_case")]
pub enum Severity {
    /// A reading of the figures: what was measured, in words.
    #[default]
    Info,
    /// Worth acting on or checking (a slow tail, a misleading threshold).
    Notice,
    /// The figures, or the storage, are not what they seem (lost records,
    /// commits dominated by the log).
    Warning,
}

impl std::fmt::Display for Severity {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(match self {
            Severity::Info => "info",
            Severity::Notice => "notice",
            Severity::Warning => "warning",
        })
    }
}

/// One number a finding rests on.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize, JsonSchema)]
pub struct Evidence {
    /// What the number is (`p99 commit latency`).
    pub what: String,
    /// The number, in `unit`.
    pub value: f64,
    /// Its unit: `ns`, `bytes`, `bytes/s`, `ops/s`, `ops/min`, `%`, `x`
    /// (a ratio), `count`, `s`.
    pub unit: String,
}

impl Evidence {
    /// One number with its unit.
    pub fn new(what: &str, value: f64, unit: &str) -> Evidence {
        Evidence {
            what: what.to_string(),
            value,
            unit: unit.to_string(),
        }
    }
}

/// Where a rule comes from: a public article, or a file in `docs/`.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
pub struct Reference {
    /// The article's title, or the documentation file (`docs/dbwr.md`).
    pub title: String,
    /// Its author, when known.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub author: Option<String>,
}

impl std::fmt::Display for Reference {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match &self.author {
            Some(a) => write!(f, "{a}, \"{}\"", self.title),
            None if self.title.starts_with("docs/") => f.write_str(&self.title),
            None => write!(f, "\"{}\"", self.title),
        }
    }
}

/// The share of a total a finding explains: Oracle ADDM ranks findings by
/// their share of DB time, Method R by their share of response time.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize, JsonSchema)]
pub struct Impact {
    /// The share, in percent (0 to 100).
    pub share_pct: f64,
    /// The total it is a share of: `response time` (R of a trace), `DB
    /// time` (a report), `commit time` (lgwr, load), `traced time`
    /// (watch), `read time` (read), `run time` (a check section).
    pub of: String,
}

/// A plain-words conclusion with the numbers it rests on.
#[derive(Debug, Clone, Default, PartialEq, Serialize, JsonSchema)]
pub struct Finding {
    /// The rule that drew it (`commit.single_session`); `legacy` for a
    /// conclusion read from a result written before findings existed.
    pub rule: String,
    /// The entry it is about (a job, model run or configuration name),
    /// when it is about one.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub subject: Option<String>,
    /// How much it matters.
    pub severity: Severity,
    /// The conclusion, one sentence or two.
    pub text: String,
    /// The numbers it rests on.
    #[serde(default)]
    pub evidence: Vec<Evidence>,
    /// Where the rule comes from.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub reference: Option<Reference>,
    /// The share of the relevant total it explains, when it explains one.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub impact: Option<Impact>,
}

/// The fields of a finding as JSON writes them.
#[derive(Deserialize)]
struct Fields {
    rule: String,
    #[serde(default)]
    subject: Option<String>,
    #[serde(default)]
    severity: Severity,
    text: String,
    #[serde(default)]
    evidence: Vec<Evidence>,
    #[serde(default)]
    reference: Option<Reference>,
    #[serde(default)]
    impact: Option<Impact>,
}

/// A finding, or a conclusion string from before findings.
#[derive(Deserialize)]
#[serde(untagged)]
enum Stored {
    Finding(Fields),
    Legacy(String),
}

impl<'de> Deserialize<'de> for Finding {
    fn deserialize<D: serde::Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        Ok(match Stored::deserialize(d)? {
            Stored::Finding(f) => Finding {
                rule: f.rule,
                subject: f.subject,
                severity: f.severity,
                text: f.text,
                evidence: f.evidence,
                reference: f.reference,
                impact: f.impact,
            },
            Stored::Legacy(text) => Finding::legacy(None, text),
        })
    }
}

impl Finding {
    /// What a command noticed while it ran, as opposed to what a rule draws
    /// from the finished result: a scratch file it removed, a section that
    /// could not run, a setting it had to change server-wide. `rule` names
    /// where it was noticed (`scratch.target`, `load.table_not_dropped`).
    /// Results written before these were findings carry them as the run
    /// report's `warnings` strings.
    pub fn note(rule: &str, severity: Severity, text: impl Into<String>) -> Finding {
        Finding {
            rule: rule.into(),
            subject: None,
            severity,
            text: text.into(),
            evidence: Vec::new(),
            reference: None,
            impact: None,
        }
    }

    /// The finding with the share of `of` it explains (percent, clamped
    /// to 0..=100; a share that is not a number is left out).
    pub fn with_impact(mut self, share_pct: f64, of: &str) -> Finding {
        if share_pct.is_finite() {
            self.impact = Some(Impact {
                share_pct: share_pct.clamp(0.0, 100.0),
                of: of.to_string(),
            });
        }
        self
    }

    /// The share it explains, percent (0 when it explains none).
    pub fn share(&self) -> f64 {
        self.impact.as_ref().map_or(0.0, |i| i.share_pct)
    }

    /// The finding with one more number it rests on.
    pub fn with_evidence(mut self, what: &str, value: f64, unit: &str) -> Finding {
        self.evidence.push(Evidence::new(what, value, unit));
        self
    }

    /// A conclusion written before findings existed: its text only.
    pub fn legacy(subject: Option<String>, text: String) -> Finding {
        Finding {
            rule: "legacy".into(),
            subject,
            severity: Severity::Info,
            text,
            evidence: Vec::new(),
            reference: None,
            impact: None,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_finding_round_trips_and_a_plain_string_reads_as_legacy() {
        let f = Finding {
            rule: "commit.compare".into(),
            subject: Some("b".into()),
            severity: Severity::Warning,
            text: "b commits 2.00x as fast as a.".into(),
            evidence: vec![Evidence::new("ratio", 2.0, "x")],
            reference: Some(Reference {
                title: "docs/lgwr.md".into(),
                author: None,
            }),
            impact: Some(Impact {
                share_pct: 62.5,
                of: "commit time".into(),
            }),
        };
        let text = serde_json::to_string(&f).unwrap();
        assert!(text.contains(r#""severity":"warning""#), "{text}");
        assert!(!text.contains("author"), "absent, not null: {text}");
        assert_eq!(serde_json::from_str::<Finding>(&text).unwrap(), f);
        let old: Vec<Finding> = serde_json::from_str(r#"["an old line"]"#).unwrap();
        assert_eq!(old, [Finding::legacy(None, "an old line".into())]);
        assert!(serde_json::from_str::<Finding>("42").is_err());
        assert_eq!(f.reference.unwrap().to_string(), "docs/lgwr.md");
    }
}
