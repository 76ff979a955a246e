//! Cells the tests' tools share with the test (a tool is `Send + Sync`): `Cell` and
//! `RefCell` with the `core::cell` methods the tests use, over a `std::sync::Mutex`.

use std::sync::{Mutex, MutexGuard};

/// A `core::cell::Cell` a `Send + Sync` tool may hold.
#[derive(Debug, Default)]
pub(crate) struct Cell<T>(Mutex<T>);

impl<T: Copy> Cell<T> {
    pub(crate) fn new(value: T) -> Cell<T> {
        Cell(Mutex::new(value))
    }

    pub(crate) fn get(&self) -> T {
        *self.0.lock().unwrap()
    }

    pub(crate) fn set(&self, value: T) {
        *self.0.lock().unwrap() = value;
    }
}

/// A `core::cell::RefCell` a `Send + Sync` tool may hold.
#[derive(Debug, Default)]
pub(crate) struct RefCell<T>(Mutex<T>);

impl<T> RefCell<T> {
    pub(crate) fn new(value: T) -> RefCell<T> {
        RefCell(Mutex::new(value))
    }

    pub(crate) fn borrow_mut(&self) -> MutexGuard<'_, T> {
        self.0.lock().unwrap()
    }

    pub(crate) fn borrow(&self) -> MutexGuard<'_, T> {
        self.0.lock().unwrap()
    }
}
