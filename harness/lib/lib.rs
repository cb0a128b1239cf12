//! skinproof: a headless GPU conformance and regression harness for a linear-blend skinning WGSL shader.

pub mod bench;
pub mod case;
pub mod check;
pub mod compare;
pub mod config;
pub mod contract;
pub mod file;
pub mod golden;
pub mod gpu;
pub mod identity;
pub mod model;
pub mod mutate;
pub mod property;
pub mod reference;
pub mod report;
pub mod rig;
pub mod run;
pub mod scene;
pub mod shader;
pub mod suite;
pub mod usage;
pub mod yaml_line;
