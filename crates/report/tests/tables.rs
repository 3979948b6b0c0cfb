//! The tables say what the model holds: figures a renderer derives (an
//! average wait) and clauses it adds only when an option was used. Values
//! are chosen so that a wrong operator or a reversed condition shows.

use dbio_model::dbwr::{DbwrResult, WaitStats};
use dbio_model::lgwr::LgwrResult;
use dbio_model::RunReport;

/// The cells of the table row for `event` (comfy-table draws cells
/// between '│' and '┆').
fn row<'a>(table: &'a str, event: &str) -> Vec<&'a str> {
    let line = table
        .lines()
        .find(|l| l.starts_with('│') && l.contains(event))
        .unwrap_or_else(|| panic!("no row for {event} in\n{table}"));
    line.split(['│', '┆'])
        .map(str::trim)
        .filter(|c| !c.is_empty())
        .collect()
}

#[test]
fn dbwr_wait_rows_show_the_average_wait() {
    let mut d = DbwrResult {
        name: "w".into(),
        ..DbwrResult::default()
    };
    // 4 waits, 10 ms in all: 2.50 ms each (a product 40 ms, a quotient
    // the other way 0.4 ns).
    d.foreground.free_buffer_waits = WaitStats {
        count: 4,
        total_ns: 10_000_000,
        ..WaitStats::default()
    };
    let r = RunReport {
        dbwr: vec![d],
        ..RunReport::default()
    };
    let text = dbio_report::dbwr::render(&r);
    let cells = row(&text, "free buffer waits");
    assert_eq!(cells[1], "4", "{cells:?}");
    assert_eq!(cells[2], "10.0 ms", "{cells:?}");
    assert_eq!(cells[3], "2.50 ms", "{cells:?}");
}

#[test]
fn lgwr_description_names_writes_in_flight_only_when_there_are_several() {
    let mut x = LgwrResult::default();
    x.config.async_depth = 1;
    assert!(
        !dbio_report::lgwr::describe(&x).contains("in flight"),
        "{}",
        dbio_report::lgwr::describe(&x)
    );
    x.config.async_depth = 4;
    assert!(
        dbio_report::lgwr::describe(&x).contains("4 writes in flight"),
        "{}",
        dbio_report::lgwr::describe(&x)
    );
}
