//! Where in a value a serde error happened: steps collected while the error travels out
//! of the nested serializers and deserializers, spelt as the schema validator spells
//! paths (`$.a.b[0]`, `$['a b']`).

use alloc::string::String;
use alloc::vec::Vec;

use super::path::{push_index, push_member};

/// One step down into a value.
#[derive(Debug, Clone, PartialEq, Eq)]
enum Step {
    /// A member of an object (a struct field, a map entry, an enum variant's content).
    Key(String),
    /// An item of an array (a sequence, a tuple).
    Index(usize),
}

/// The steps from the root to where an error happened, innermost first (each level
/// adds its own step as the error passes through it).
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub(crate) struct Steps(Vec<Step>);

impl Steps {
    /// The error passed out of member `key`.
    pub(crate) fn push_key(&mut self, key: &str) {
        self.0.push(Step::Key(key.into()));
    }

    /// The error passed out of item `index`.
    pub(crate) fn push_index(&mut self, index: usize) {
        self.0.push(Step::Index(index));
    }

    /// The path from the root: `$`, `$.a[0]`, `$['a b']`.
    pub(crate) fn spell(&self) -> String {
        let mut out = String::from("$");
        for step in self.0.iter().rev() {
            match step {
                Step::Key(key) => push_member(&mut out, key),
                Step::Index(index) => push_index(&mut out, *index),
            }
        }
        out
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn steps_are_spelt_outermost_first() {
        let mut steps = Steps::default();
        assert_eq!(steps.spell(), "$");
        steps.push_index(2);
        steps.push_key("a b");
        steps.push_key("readings");
        assert_eq!(steps.spell(), "$.readings['a b'][2]");
    }
}
