//! The database-writer model (`dbio dbwr`, issue 4).
