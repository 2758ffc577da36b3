//! Loose .dds files (legacy FourCC and DX10 headers): being written in the foundation issue.

use crate::OpenContext;

/// Claims and lists the .dds files among the opened files.
pub fn open(_ctx: &mut OpenContext) {}
