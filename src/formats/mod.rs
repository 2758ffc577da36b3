//! Loose, engine-free texture files: DirectDraw Surface (.dds), Khronos KTX 1 and 2 (.ktx,
//! .ktx2), crunch (.crn) and Basis Universal (.basis). Each reads its own header into the engine-neutral model; none of
//! them knows an engine. `sniff` names what a file no opener took looks like.

pub mod basis;
pub mod crn;
pub mod dds;
pub mod ktx;
pub(crate) mod sniff;
