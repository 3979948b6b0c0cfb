//! Heat maps, each cell labelled with its value.

use super::*;

/// One heat map: a value per cell of a grid of columns (x) and rows (y),
/// `None` where nothing was measured.
pub struct Grid<'a> {
    /// Column headings, left to right.
    pub cols: &'a [String],
    /// Row headings, top to bottom.
    pub rows: &'a [String],
    /// `values[row][col]`.
    pub values: &'a [Vec<Option<f64>>],
    /// What the columns count.
    pub x_title: &'a str,
    /// What the rows count.
    pub y_title: &'a str,
}

/// The scale's two ends, light to dark (a single-hue sequential scale:
/// darker is larger, and it stays ordered in grey).
pub(super) const HEAT_LO: (f64, f64, f64) = (239.0, 243.0, 255.0);
pub(super) const HEAT_HI: (f64, f64, f64) = (8.0, 48.0, 107.0);

/// The fill of a cell at `t` in 0..=1 along the scale, and the fill of a
/// label that stays readable on it.
pub(super) fn heat_colour(t: f64) -> (String, &'static str) {
    let t = if t.is_finite() {
        t.clamp(0.0, 1.0)
    } else {
        0.0
    };
    let c = |a: f64, b: f64| (a + (b - a) * t).round() as u8;
    (
        format!(
            "rgb({},{},{})",
            c(HEAT_LO.0, HEAT_HI.0),
            c(HEAT_LO.1, HEAT_HI.1),
            c(HEAT_LO.2, HEAT_HI.2)
        ),
        if t < 0.5 { "#000" } else { "#fff" },
    )
}

/// A heat map: one cell per (column, row), filled on a linear scale from
/// zero to the largest value AND labelled with its value (so the
/// figure is read, not guessed from a shade, and a grey print keeps it),
/// its heading pair and value in the tooltip; cells not measured are
/// left blank and say so. The scale's legend, with its values, is drawn
/// under the grid. Each cell is a `<g class="cell">` whose `data-row` and
/// `data-col` are its row's and column's headings.
pub fn heatmap(id: &str, caption: &str, g: &Grid, fmt: Fmt) -> String {
    let cell_h = 30.0;
    let nr = g.rows.len().max(1);
    let nc = g.cols.len().max(1);
    let grid_h = cell_h * nr as f64;
    let h = TOP + grid_h + 80.0;
    let mut s = open("heat", id, h, caption);
    let vals: Vec<f64> = g
        .values
        .iter()
        .flatten()
        .flatten()
        .copied()
        .filter(|v| v.is_finite())
        .collect();
    // From zero (or the smallest value when one is negative) to the
    // largest, so a shade is in proportion to its value: 1.00 ms against
    // 1.01 ms look alike, as they are, and 1 k IOPS against 4 k do not.
    let lo = vals.iter().copied().fold(0.0, f64::min);
    let hi = vals.iter().copied().fold(f64::MIN, f64::max);
    let t_of = |v: f64| {
        if hi > lo {
            (v - lo) / (hi - lo)
        } else {
            0.5
        }
    };
    let cw = (W - LEFT - RIGHT) / nc as f64;
    for (r, row) in g.rows.iter().enumerate() {
        let y = TOP + cell_h * r as f64;
        let _ = write!(
            s,
            "<text x=\"{:.1}\" y=\"{:.1}\" text-anchor=\"end\">{}</text>",
            LEFT - 6.0,
            y + cell_h / 2.0 + 4.0,
            esc(row)
        );
        for (c, col) in g.cols.iter().enumerate() {
            let x = LEFT + cw * c as f64;
            let v = g
                .values
                .get(r)
                .and_then(|vs| vs.get(c))
                .copied()
                .flatten()
                .filter(|v| v.is_finite());
            let (fill, ink, label, title) = match v {
                Some(v) => {
                    let (f, i) = heat_colour(t_of(v));
                    (f, i, fmt(v), fmt(v))
                }
                None => (
                    "none".to_string(),
                    "#777",
                    "-".to_string(),
                    "not measured".to_string(),
                ),
            };
            let _ = write!(
                s,
                "<g class=\"cell\" data-row=\"{}\" data-col=\"{}\"><rect class=\"heat\" x=\"{x:.1}\" y=\"{y:.1}\" width=\"{:.1}\" height=\"{cell_h:.1}\" style=\"fill:{fill};stroke:var(--rule)\"><title>{} {}, {} {}: {}</title></rect><text class=\"cell\" x=\"{:.1}\" y=\"{:.1}\" text-anchor=\"middle\" style=\"fill:{ink}\">{}</text></g>",
                esc(row),
                esc(col),
                cw,
                esc(g.x_title),
                esc(col),
                esc(g.y_title),
                esc(row),
                esc(&title),
                x + cw / 2.0,
                y + cell_h / 2.0 + 4.0,
                esc(&label)
            );
        }
    }
    for (c, col) in g.cols.iter().enumerate() {
        let _ = write!(
            s,
            "<text x=\"{:.1}\" y=\"{:.1}\" text-anchor=\"middle\">{}</text>",
            LEFT + cw * (c as f64 + 0.5),
            TOP + grid_h + 14.0,
            esc(col)
        );
    }
    let _ = write!(
        s,
        "<text class=\"xt\" x=\"{:.1}\" y=\"{:.1}\" text-anchor=\"middle\">{}</text><text class=\"yt\" x=\"4\" y=\"{:.1}\">{} ↓</text>",
        LEFT + (W - LEFT - RIGHT) / 2.0,
        TOP + grid_h + 30.0,
        esc(g.x_title),
        TOP - 12.0,
        esc(g.y_title)
    );
    // The legend: five steps of the scale with the value each stands for.
    let ly = TOP + grid_h + 44.0;
    let _ = write!(
        s,
        "<g class=\"scale\"><text x=\"{:.1}\" y=\"{:.1}\" text-anchor=\"end\">scale</text>",
        LEFT - 6.0,
        ly + 13.0
    );
    if vals.is_empty() {
        let _ = write!(
            s,
            "<text x=\"{LEFT}\" y=\"{:.1}\">no cell measured</text>",
            ly + 13.0
        );
    } else {
        let sw = 110.0;
        for k in 0..5 {
            let t = k as f64 / 4.0;
            let v = if hi > lo { lo + (hi - lo) * t } else { lo };
            let (fill, _) = heat_colour(if hi > lo { t } else { 0.5 });
            let x = LEFT + sw * k as f64;
            let _ = write!(
                s,
                "<rect class=\"step\" x=\"{x:.1}\" y=\"{ly:.1}\" width=\"18\" height=\"16\" style=\"fill:{fill};stroke:var(--rule)\"/><text class=\"step\" x=\"{:.1}\" y=\"{:.1}\">{}</text>",
                x + 22.0,
                ly + 13.0,
                esc(&fmt(v))
            );
            if hi <= lo {
                break;
            }
        }
    }
    s.push_str("</g>");
    close(&mut s, caption);
    s
}
