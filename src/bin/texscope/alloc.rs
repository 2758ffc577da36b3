//! The allocator setting of the native CLI: large decoded images reuse freed memory instead of
//! fresh pages from the kernel.
//!
//! Why (issue 22, measured 2026-12-04 on the 2-core VM, `texscope bench --runs 9`, 2048x2048):
//! glibc serves an allocation of 32 MiB or more (its largest dynamic mmap threshold) with a new
//! mmap and returns it with munmap when freed, so every 16-bit or float surface from 2048x2048 up
//! (RGBA16 is 8 bytes a texel: 32 MiB) is written into untouched pages, one page fault per 4 KiB.
//! That, not decoding, bounded EAC R11 / RG11 at 890-930 / 830-840 MB/s of RGBA output and the plain
//! RGBA16 copy at 1340-1380; served from the heap (GLIBC_TUNABLES mmap_threshold and trim_threshold
//! raised, same run) they ran 2200-2260 / 1720-1800 and 4100-4400. 8-bit 2048x2048 images (16 MiB)
//! already come from the heap after the first is freed. A batch export decodes one image after
//! another on each thread, so the page faults were paid per texture there too.
//! The cost: memory freed by the process is kept for its next image rather than given back to the
//! system (bounded by the process's own peak, which a CLI run holds anyway).

/// Largest allocation served from the heap (larger ones are mmap'd): 512 MiB, an 8192x8192
/// RGBA16 image.
#[cfg(all(target_os = "linux", target_env = "gnu"))]
const MMAP_THRESHOLD: libc::c_int = 512 << 20;

/// Raises glibc's mmap and trim thresholds (see the module comment). Elsewhere a no-op: other
/// allocators and systems keep their own policy.
pub fn keep_freed_images() {
    #[cfg(all(target_os = "linux", target_env = "gnu"))]
    // SAFETY: mallopt only changes two tuning parameters of glibc's allocator, called once at the
    // start of main before any other thread exists; a refused value (returns 0) leaves glibc's
    // default, which is correct, only slower.
    #[allow(unsafe_code)]
    unsafe {
        libc::mallopt(libc::M_MMAP_THRESHOLD, MMAP_THRESHOLD);
        libc::mallopt(libc::M_TRIM_THRESHOLD, 2 * MMAP_THRESHOLD);
    }
}
