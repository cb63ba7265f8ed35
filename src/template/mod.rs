//! Go-template handling: find the `{{ … }}` actions, then mask them into YAML.

pub mod lex;
pub mod mask;
