//! Renderers: turn models and findings into text for people and machines.

pub mod map;
