//! Translation layers for host-managed SMR drives with rewritable (conventional) zones, after
//! the uCache paper: the drive model (`device`) and uCache itself (`ucache`).
//!
//! Not yet here (issue 4 continues): the E-region and dm-zoned-like baselines, bucket headers,
//! checkpoints and crash recovery, and the paper's analysis measures.

pub mod device;
pub mod ucache;
