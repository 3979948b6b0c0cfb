//! Tier calibration (`dbio calibrate`, issue 4).
