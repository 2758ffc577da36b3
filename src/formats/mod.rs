//! Loose, engine-free texture files: DirectDraw Surface (.dds), Khronos KTX 1 and 2 (.ktx,
//! .ktx2), crunch (.crn), Basis Universal (.basis) and PlayStation
//! textures (.gnf, tiled for the console's GPU). Each reads its own header into the engine-neutral model; none of
//! them knows an engine. `sniff` names what a file no opener took looks like.

pub mod basis;
pub mod crn;
pub mod dds;
pub mod gnf;
pub mod ktx;
pub(crate) mod sniff;
