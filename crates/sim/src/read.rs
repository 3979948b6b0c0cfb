//! Datafile reads with cache tiers (`dbio read`, issue 4).
