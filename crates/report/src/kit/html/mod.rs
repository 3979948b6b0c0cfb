//! The HTML kit: the page ([`page`]: document, style sheet, escaping,
//! the shared blocks: findings, environment, settings, provenance), the
//! SVG chart primitives ([`svg`]) and the per-second charts ([`persec`]).

pub mod page;
pub mod persec;
pub mod svg;
