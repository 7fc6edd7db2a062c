//! Translation layers for host-managed SMR drives with rewritable (conventional) zones, after
//! the uCache paper: the drive model (`device`, which also holds the data-zone cleaning every
//! layer shares), uCache itself (`ucache`) and its E-region baseline (`eregion`).
//!
//! Not yet here (issue 4 continues): the dm-zoned-like zone map, bucket headers, checkpoints and
//! crash recovery, and the paper's analysis measures beyond Tables III and IV.

pub mod device;
pub mod eregion;
pub mod ucache;
