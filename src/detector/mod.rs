//! Detectors as data: the spec read from `detectors/*.yaml`.

pub mod rule;
