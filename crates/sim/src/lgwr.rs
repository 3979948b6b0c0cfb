//! The log-writer model (`dbio lgwr`, issue 3).
