//! The check pass's in-place applicators: `allOf`, `anyOf`, `oneOf`, `not`,
//! `if`/`then`/`else`, `dependentSchemas`, `$ref`, `$dynamicRef`.

use super::marks::Marks;
use super::{has_member, Engine, Scope};
use crate::json::Value;
use crate::schema::tree::Keywords;

impl Engine<'_> {
    /// The in-place applicators: `allOf`, `anyOf`, `oneOf`, `not`, `if`/`then`/`else`,
    /// `dependentSchemas`, `$ref`, `$dynamicRef`.
    #[inline]
    pub(super) fn in_place(
        &mut self,
        k: &Keywords,
        value: &Value,
        scope: &Scope,
        depth: usize,
        mut marks: Option<&mut Marks>,
    ) -> bool {
        let deeper = depth + 1;
        for &schema in &k.all_of {
            if !self.check(schema, value, scope, deeper, marks.as_deref_mut()) {
                return false;
            }
        }
        if !k.any_of.is_empty() && !self.any_of(k, value, scope, deeper, marks.as_deref_mut()) {
            return false;
        }
        if !k.one_of.is_empty() && !self.one_of(k, value, scope, deeper, marks.as_deref_mut()) {
            return false;
        }
        if let Some(schema) = k.not {
            if self.check(schema, value, scope, deeper, None) {
                return false;
            }
        }
        if let Some(condition) = k.condition {
            let mut own = Marks::default();
            let collect = marks.is_some().then_some(&mut own);
            let branch = if self.check(condition, value, scope, deeper, collect) {
                if let Some(marks) = marks.as_deref_mut() {
                    marks.merge(&own);
                }
                k.then
            } else {
                k.otherwise
            };
            if let Some(schema) = branch {
                if !self.check(schema, value, scope, deeper, marks.as_deref_mut()) {
                    return false;
                }
            }
        }
        if let Value::Object(members) = value {
            for (name, schema) in &k.dependent_schemas {
                if has_member(members, name)
                    && !self.check(*schema, value, scope, deeper, marks.as_deref_mut())
                {
                    return false;
                }
            }
        }
        if let Some(target) = k.reference {
            if !self.check(target, value, scope, deeper, marks.as_deref_mut()) {
                return false;
            }
        }
        if let Some(target) = self.dynamic_target(k, scope) {
            if !self.check(target, value, scope, deeper, marks) {
                return false;
            }
        }
        true
    }

    /// `anyOf` (non-empty): whether an alternative holds; with `marks`, every one that
    /// holds leaves its marks.
    #[inline]
    fn any_of(
        &mut self,
        k: &Keywords,
        value: &Value,
        scope: &Scope,
        deeper: usize,
        marks: Option<&mut Marks>,
    ) -> bool {
        match marks {
            // Every alternative that matches leaves its marks.
            Some(marks) => {
                let mut any = false;
                for &schema in &k.any_of {
                    let mut own = Marks::default();
                    if self.check(schema, value, scope, deeper, Some(&mut own)) {
                        any = true;
                        marks.merge(&own);
                    }
                }
                any
            }
            None => k
                .any_of
                .iter()
                .any(|&schema| self.check(schema, value, scope, deeper, None)),
        }
    }

    /// `oneOf` (non-empty): whether exactly one alternative holds; with `marks`, it
    /// leaves its marks.
    #[inline]
    fn one_of(
        &mut self,
        k: &Keywords,
        value: &Value,
        scope: &Scope,
        deeper: usize,
        marks: Option<&mut Marks>,
    ) -> bool {
        let mut matched = 0;
        let mut kept = Marks::default();
        for &schema in &k.one_of {
            let mut own = Marks::default();
            let collect = marks.is_some().then_some(&mut own);
            if self.check(schema, value, scope, deeper, collect) {
                matched += 1;
                if matched > 1 {
                    return false;
                }
                kept = own;
            }
        }
        if matched != 1 {
            return false;
        }
        if let Some(marks) = marks {
            marks.merge(&kept);
        }
        true
    }
}
