//! The work one validation may do, counted in steps as it is done ([`Meter`]), so that
//! no schema and instance can make it take long: past [`MAX_VALIDATION_STEPS`], the
//! instance gets one violation saying so instead of a verdict (nothing is accepted
//! unchecked). Counting, not timing: the same schema and instance always stop at the
//! same step.
//!
//! A step is about the time of checking a leaf schema (`type`, `enum`, `const`, a
//! bound) against a value: each subschema applied to a value is one, and whatever
//! costs more is charged in proportion ([`cost`]): the members or items a keyword
//! walks, a string's length where `pattern` or `minLength` reads it, a remembered
//! verdict, each violation with its path and message.

use core::cell::Cell;

/// The most steps one validation may take ([`crate::Schema::validate`],
/// [`crate::Schema::is_valid`]): about a quarter of a second on the 2-core
/// machine of docs/performance.md, under load, where each step is a leaf subschema
/// applied to a value; over a hundred times what an instance of a megabyte takes
/// against a realistic schema (10,000 objects against a model with references: under
/// 1 %). Past it, validation stops with a violation at the root (`validation stopped:
/// …`), and `is_valid` says false.
pub const MAX_VALIDATION_STEPS: u64 = 1 << 24;

/// What the kinds of work cost, in steps.
pub(crate) mod cost {
    /// A remembered verdict looked up or stored (a search in an ordered map).
    pub(crate) const MEMO: u64 = 8;
    /// A violation recorded: its path and message are built (the values it quotes
    /// written, up to 100 bytes each) and kept (more in proportion to their length,
    /// [`super::Meter::bytes`]).
    pub(crate) const VIOLATION: u64 = 128;
    /// A property name made a string value for `propertyNames`, kept until the
    /// validation ends (its address keys remembered verdicts).
    pub(crate) const NAME: u64 = 64;
}

/// Steps taken by one validation, shared by everything that does its work (through a
/// shared reference: the engine and the list of violations both charge it).
#[derive(Debug)]
pub(crate) struct Meter {
    used: Cell<u64>,
    limit: u64,
}

impl Meter {
    /// A meter of [`MAX_VALIDATION_STEPS`].
    pub(crate) fn new() -> Meter {
        Meter::with(MAX_VALIDATION_STEPS)
    }

    /// A meter of `steps`.
    pub(crate) fn with(steps: u64) -> Meter {
        Meter {
            used: Cell::new(0),
            limit: steps,
        }
    }

    /// Takes `steps`; `false` (from then on: the validation is to stop) when that
    /// passes the limit.
    #[inline(always)]
    pub(crate) fn spend(&self, steps: u64) -> bool {
        let used = self.used.get().saturating_add(steps);
        self.used.set(used);
        used <= self.limit
    }

    /// Takes the steps of reading `bytes` bytes ([`Meter::steps_of_bytes`]).
    #[inline(always)]
    pub(crate) fn bytes(&self, bytes: usize) -> bool {
        self.spend(Meter::steps_of_bytes(bytes))
    }

    /// The steps of reading `bytes` bytes (a string `pattern` or `minLength` reads, a
    /// path and a message written): one per 16 bytes.
    #[inline(always)]
    pub(crate) fn steps_of_bytes(bytes: usize) -> u64 {
        (bytes / 16) as u64
    }

    /// Whether the steps ran out: the verdict is not to be trusted.
    pub(crate) fn exhausted(&self) -> bool {
        self.used.get() > self.limit
    }

    /// The steps taken, at most the limit.
    pub(crate) fn used(&self) -> u64 {
        self.used.get().min(self.limit)
    }
}
