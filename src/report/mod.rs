//! Renderers: turn models and findings into text for people and machines.

pub mod github;
pub mod human;
pub mod idem;
pub mod json;
pub mod map;
pub mod sarif;
