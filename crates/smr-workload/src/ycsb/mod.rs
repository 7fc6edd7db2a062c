//! YCSB's core workloads: key naming (`keys`), the key distributions (`zipfian`) and the
//! parameters and operation stream of workloads A to F (`workload`). What YCSB calls the
//! workload generator; the executor that issues the operations lives in `crate::executor`.

pub mod keys;
pub mod workload;
pub mod zipfian;

pub use workload::{CoreWorkload, OpKind, Operation, OperationStream, PRESETS};
