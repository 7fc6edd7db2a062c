//! Translation layers for host-managed SMR drives with rewritable (conventional) zones, after
//! the uCache paper: the drive model (`device`, which also holds the data-zone cleaning every
//! layer shares), uCache itself (`ucache`), its E-region baseline (`eregion`) and the
//! dm-zoned-like extreme (`zonemap`).
//!
//! uCache's bucket headers, checkpoints and recovery are in `journal`. Not yet here (issue 4
//! continues): the paper's analysis measures beyond Tables III and IV.

pub mod device;
pub mod eregion;
pub mod journal;
pub mod ucache;
pub mod zonemap;
