//! ARM semihosting, the two calls the image needs: write a line to the host and end the
//! run with a status. Under QEMU (`-semihosting-config enable=on,target=native`) or a
//! debugger; on a board with neither, a `bkpt` faults.

use core::arch::asm;

/// SYS_WRITE0: writes a NUL-terminated string.
const SYS_WRITE0: usize = 0x04;
/// SYS_EXIT: ends the run with a reason code.
const SYS_EXIT: usize = 0x18;
/// ADP_Stopped_ApplicationExit: success (QEMU exits with 0).
const EXIT_OK: usize = 0x2_0026;
/// ADP_Stopped_RunTimeErrorUnknown: failure (QEMU exits with 1).
const EXIT_FAILURE: usize = 0x2_0023;

fn call(op: usize, arg: usize) {
    // SAFETY: `bkpt 0xab` is the semihosting trap of ARMv6-M and ARMv7-M; it reads r0
    // and r1 (and, for SYS_WRITE0, the NUL-terminated string r1 points to, which our
    // callers keep alive for the call) and writes only r0.
    unsafe {
        asm!("bkpt #0xab", inout("r0") op => _, in("r1") arg, options(nostack, readonly));
    }
}

/// Writes `text`, which must end with a NUL byte.
pub fn write(text: &[u8]) {
    if text.last() == Some(&0) {
        call(SYS_WRITE0, text.as_ptr() as usize);
    }
}

/// Ends the run as a success.
pub fn exit_ok() -> ! {
    call(SYS_EXIT, EXIT_OK);
    halt()
}

/// Writes `text` (NUL-terminated) and ends the run as a failure.
pub fn fail(text: &[u8]) -> ! {
    write(text);
    call(SYS_EXIT, EXIT_FAILURE);
    halt()
}

/// Where a run without a host (no debugger, no QEMU) stops.
fn halt() -> ! {
    loop {
        core::hint::spin_loop();
    }
}
