//! The run-time a board crate would bring, written out: the vector table, a reset
//! handler that zeroes `.bss`, copies `.data`, paints the stack and turns the FPU on
//! (on an `eabihf` target), and the stack's high-water mark read back from the paint.

use core::arch::global_asm;

/// What the unused stack is painted with before `main` runs.
const PAINT: u32 = 0xA5A5_A5A5;

extern "C" {
    fn reset() -> !;
    static __ebss: u32;
    static __stack_top: u32;
}

/// The reset vector, right after the initial stack pointer (link.x).
#[link_section = ".vector_table.reset"]
#[no_mangle]
#[used]
static RESET_VECTOR: unsafe extern "C" fn() -> ! = reset;

/// NMI, HardFault and the other system exceptions: any of them ends the run as a
/// failure.
#[link_section = ".vector_table.exceptions"]
#[no_mangle]
#[used]
static EXCEPTIONS: [extern "C" fn() -> !; 14] = [fault; 14];

extern "C" fn fault() -> ! {
    crate::semihosting::fail(b"agentloop firmware: a processor fault\n\0")
}

// The reset handler, in assembly so that nothing runs before memory is set up and no
// stack is used while it is painted: zero .bss, copy .data from flash, paint from the
// end of .bss up to the stack pointer, enable the FPU (a no-op without one), then main.
// Only ARMv6-M instructions (movs, adds, cmp, b), so one text serves both targets.
global_asm!(
    ".section .text.reset,\"ax\",%progbits",
    ".global reset",
    ".type reset,%function",
    ".thumb_func",
    "reset:",
    "  ldr r0, =__sbss",
    "  ldr r1, =__ebss",
    "  movs r2, #0",
    "1:",
    "  cmp r0, r1",
    "  bhs 2f",
    "  str r2, [r0]",
    "  adds r0, #4",
    "  b 1b",
    "2:",
    "  ldr r0, =__sdata",
    "  ldr r1, =__edata",
    "  ldr r2, =__sidata",
    "3:",
    "  cmp r0, r1",
    "  bhs 4f",
    "  ldr r3, [r2]",
    "  str r3, [r0]",
    "  adds r0, #4",
    "  adds r2, #4",
    "  b 3b",
    "4:",
    "  ldr r0, =__ebss",
    "  mov r1, sp",
    "  ldr r2, ={paint}",
    "5:",
    "  cmp r0, r1",
    "  bhs 6f",
    "  str r2, [r0]",
    "  adds r0, #4",
    "  b 5b",
    "6:",
    "  bl enable_fpu",
    "  bl firmware_main",
    "  b .",
    ".ltorg",
    paint = const PAINT,
);

// Cortex-M4F: full access to CP10 and CP11 (CPACR, 0xE000ED88) before any floating
// point instruction, which the hard-float ABI uses to pass an f64.
#[cfg(target_abi = "eabihf")]
global_asm!(
    ".section .text.enable_fpu,\"ax\",%progbits",
    ".global enable_fpu",
    ".type enable_fpu,%function",
    ".thumb_func",
    "enable_fpu:",
    "  ldr r0, =0xE000ED88",
    "  ldr r1, [r0]",
    "  ldr r2, =0x00F00000",
    "  orrs r1, r2",
    "  str r1, [r0]",
    "  dsb",
    "  isb",
    "  bx lr",
    ".ltorg",
);

#[cfg(not(target_abi = "eabihf"))]
global_asm!(
    ".section .text.enable_fpu,\"ax\",%progbits",
    ".global enable_fpu",
    ".type enable_fpu,%function",
    ".thumb_func",
    "enable_fpu:",
    "  bx lr",
);

/// The deepest the stack has reached since reset, in bytes: from the top of RAM down to
/// the lowest word the paint no longer holds.
pub fn stack_high_water() -> u32 {
    let bottom = core::ptr::addr_of!(__ebss) as usize;
    let top = core::ptr::addr_of!(__stack_top) as usize;
    let mut at = bottom;
    while at < top {
        // SAFETY: `at` is a word-aligned address in RAM between the end of .bss and the
        // top of the stack (link.x), always readable; words below the stack pointer
        // belong to no Rust object, and the read is volatile so it is not assumed to be.
        let word = unsafe { core::ptr::read_volatile(at as *const u32) };
        if word != PAINT {
            break;
        }
        at += 4;
    }
    (top - at) as u32
}

/// The stack's room: from the end of .bss to the top of RAM, in bytes.
pub fn stack_room() -> u32 {
    let bottom = core::ptr::addr_of!(__ebss) as usize;
    let top = core::ptr::addr_of!(__stack_top) as usize;
    (top - bottom) as u32
}
