//! The per-kind checks of [`LoopAudit`]: each loop record's payload (`task`,
//! `assistant` and its `provider`, `tool`, `stop`, `resume`) has the members the loop
//! writes, of the right types, and agrees with the records before it.

use alloc::format;
use alloc::string::String;
use alloc::vec::Vec;

use super::describe::{count_member, describe, describe_member, quoted, truncate};
use super::{LoopAudit, Phase};
use crate::hash::Hash;
use crate::json::{Object, Value};
use crate::vocabulary::member::{
    AFTER, ARGUMENTS, BUDGETS, CACHED_INPUT_TOKENS, ERROR, FINISH_REASON, ID, INPUT_TOKENS, MODEL,
    NAME, OK, PROVIDER, REASON, REQUEST_SHA256, RESPONSE_ID, RESPONSE_SHA256, SETUP, STEPS, TASK,
    TEXT, TOKENS, TOOL_CALLS, UNRUN_CALLS, VALUE,
};
use crate::vocabulary::{call_id, RecordKind, SetupReason, StopReason};

impl LoopAudit {
    pub(super) fn task(&mut self, index: u64, payload: &Object) {
        self.members(index, "task payload", payload, &[BUDGETS, TASK], &[SETUP]);
        self.setup(index, RecordKind::Task, payload);
        // An absent member is reported once, as missing, by `members`.
        if payload.contains_key(TASK) && !matches!(payload.get(TASK), Some(Value::String(_))) {
            let found = describe_member(payload, TASK);
            self.find(
                index,
                format!("task payload: task must be a string, found {found}"),
            );
        }
        if payload.contains_key(BUDGETS) && !matches!(payload.get(BUDGETS), Some(Value::Object(_)))
        {
            let found = describe_member(payload, BUDGETS);
            self.find(
                index,
                format!("task payload: budgets must be an object, found {found}"),
            );
        }
    }

    pub(super) fn assistant(&mut self, index: u64, seq: Option<u64>, payload: &Object) {
        self.steps += 1;
        self.turn = Some(index);
        self.calls.clear();
        self.expected.clear();
        self.answered = 0;
        self.members(
            index,
            "assistant payload",
            payload,
            &[TEXT, TOKENS, TOOL_CALLS],
            &[PROVIDER],
        );
        match payload.get(PROVIDER) {
            None => {}
            Some(Value::Object(provider)) => self.provider(index, provider),
            Some(other) => {
                let found = describe(other);
                self.find(
                    index,
                    format!("assistant payload: provider must be an object, found {found}"),
                );
            }
        }
        if payload.contains_key(TEXT) && !matches!(payload.get(TEXT), Some(Value::String(_))) {
            let found = describe_member(payload, TEXT);
            self.find(
                index,
                format!("assistant payload: text must be a string, found {found}"),
            );
        }
        match count_member(payload, TOKENS) {
            Ok(tokens) => self.tokens = self.tokens.saturating_add(tokens),
            Err(_) if !payload.contains_key(TOKENS) => self.tokens_known = false,
            Err(found) => {
                self.tokens_known = false;
                self.find(
                    index,
                    format!("assistant payload: tokens must be an integer from 0 to 2^53-1, found {found}"),
                );
            }
        }
        let calls = match payload.get(TOOL_CALLS) {
            Some(Value::Array(calls)) => calls,
            None => return,
            Some(other) => {
                let found = describe(other);
                self.find(
                    index,
                    format!("assistant payload: tool_calls must be an array, found {found}"),
                );
                return;
            }
        };
        for (position, call) in calls.iter().enumerate() {
            self.assistant_call(index, seq, position, call);
        }
    }

    /// Call `position` of an `assistant` payload's `tool_calls`: an object `{id, name,
    /// arguments}` whose id is `call_<seq>_<index>`, kept as `(id, name)` for the `tool`
    /// records that answer it.
    fn assistant_call(&mut self, index: u64, seq: Option<u64>, position: usize, call: &Value) {
        let Some(call) = call.as_object() else {
            let found = describe(call);
            self.find(
                index,
                format!("assistant payload: call {position} must be an object {{id, name, arguments}}, found {found}"),
            );
            return;
        };
        let what = format!("assistant payload: call {position}");
        self.members(index, &what, call, &[ARGUMENTS, ID, NAME], &[]);
        let id = call.get(ID).and_then(Value::as_str);
        let name = call.get(NAME).and_then(Value::as_str);
        if name.is_none() && call.contains_key(NAME) {
            let found = describe_member(call, NAME);
            self.find(
                index,
                format!("{what}: name must be a string, found {found}"),
            );
        }
        match (id, seq) {
            (None, _) if !call.contains_key(ID) => {}
            (None, _) => {
                let found = describe_member(call, ID);
                self.find(index, format!("{what}: id must be a string, found {found}"));
            }
            (Some(id), Some(seq)) => {
                let want = call_id(seq, position);
                if id != want {
                    self.find(
                        index,
                        format!(
                            "{what}: id is \"{}\", expected \"{want}\" (call_<seq>_<index>)",
                            truncate(id)
                        ),
                    );
                }
            }
            (Some(_), None) => {}
        }
        let name = String::from(name.unwrap_or_default());
        self.expected.push(self.expect(&name, call.get(ARGUMENTS)));
        self.calls
            .push((String::from(id.unwrap_or_default()), name));
    }

    /// An `assistant` payload's `provider` member: only the members the loop writes
    /// (each reported one; none is required, but the loop writes no empty object),
    /// strings, counts and digests (64 lowercase hex digits), and no more cached input
    /// tokens than input tokens.
    fn provider(&mut self, index: u64, provider: &Object) {
        let what = "assistant payload: provider";
        self.members(index, what, provider, &[], &PROVIDER_MEMBERS);
        if provider.is_empty() {
            self.find(
                index,
                format!("{what} is empty; the loop leaves it out when nothing was reported"),
            );
        }
        for key in [FINISH_REASON, MODEL, RESPONSE_ID] {
            match provider.get(key) {
                None | Some(Value::String(_)) => {}
                Some(other) => {
                    let found = describe(other);
                    self.find(
                        index,
                        format!("{what}: {key} must be a string, found {found}"),
                    );
                }
            }
        }
        for key in [REQUEST_SHA256, RESPONSE_SHA256] {
            match provider.get(key) {
                None => {}
                Some(Value::String(hex)) if Hash::from_hex(hex.as_bytes()).is_some() => {}
                Some(other) => {
                    let found = describe(other);
                    self.find(
                        index,
                        format!("{what}: {key} must be a SHA-256 (64 lowercase hex digits), found {found}"),
                    );
                }
            }
        }
        let mut counts = [None, None];
        for (slot, key) in counts.iter_mut().zip([INPUT_TOKENS, CACHED_INPUT_TOKENS]) {
            match count_member(provider, key) {
                Ok(n) => *slot = Some(n),
                Err(_) if !provider.contains_key(key) => {}
                Err(found) => self.find(
                    index,
                    format!("{what}: {key} must be an integer from 0 to 2^53-1, found {found}"),
                ),
            }
        }
        if let [Some(input), Some(cached)] = counts {
            if cached > input {
                self.find(
                    index,
                    format!(
                        "{what}: cached_input_tokens is {cached}, more than input_tokens {input}"
                    ),
                );
            }
        }
    }

    pub(super) fn tool(&mut self, index: u64, payload: &Object) {
        self.members(
            index,
            "tool payload",
            payload,
            &[ID, NAME, OK],
            &[ERROR, VALUE],
        );
        let has_value = payload.contains_key(VALUE);
        let error_string = matches!(payload.get(ERROR), Some(Value::String(_)));
        match payload.get(OK) {
            Some(Value::Bool(true)) if has_value && !payload.contains_key(ERROR) => {}
            Some(Value::Bool(true)) => self.find(
                index,
                String::from("tool payload: an ok:true record has a value and no error"),
            ),
            Some(Value::Bool(false)) if has_value || !error_string => {
                let found = describe_member(payload, ERROR);
                let value = if has_value { " and a value" } else { "" };
                self.find(
                    index,
                    format!(
                        "tool payload: an ok:false record has an error string and no value, \
                         found error {found}{value}"
                    ),
                );
            }
            Some(Value::Bool(false)) | None => {}
            Some(other) => {
                let found = describe(other);
                self.find(
                    index,
                    format!("tool payload: ok must be a boolean, found {found}"),
                );
            }
        }
        let id = payload.get(ID).and_then(Value::as_str);
        let name = payload.get(NAME).and_then(Value::as_str);
        let Some((want_id, want_name)) = self.calls.get(self.answered) else {
            let detail = match self.turn {
                None => String::from(
                    "a tool record answering no call: no assistant record comes before it",
                ),
                Some(at) => format!(
                    "a tool record answering no call: the assistant record at index {at} has {} \
                     call{}, all answered",
                    self.calls.len(),
                    if self.calls.len() == 1 { "" } else { "s" }
                ),
            };
            return self.find(index, detail);
        };
        if id == Some(want_id.as_str()) && name == Some(want_name.as_str()) {
            if let Some(Some(expected)) = self.expected.get(self.answered).cloned() {
                let name = want_name.clone();
                self.as_expected(index, &name, &expected, payload);
            }
            self.answered += 1;
            return;
        }
        let later = self.calls[self.answered..]
            .iter()
            .position(|(i, _)| Some(i.as_str()) == id);
        let detail = format!(
            "expected the tool record for {} '{}' (call {} of the assistant record at index {}), \
             found id {} and name {}",
            truncate(want_id),
            truncate(want_name),
            self.answered,
            self.turn.unwrap_or_default(),
            describe_member(payload, ID),
            describe_member(payload, NAME),
        );
        self.find(index, detail);
        // Reported once, here: an answer to a later call skips the ones before it, and
        // any other record in this place is taken as the expected call's answer.
        self.answered += later.map_or(1, |skip| skip + 1);
    }

    pub(super) fn stop(&mut self, index: u64, payload: &Object) {
        let reason = payload
            .get(REASON)
            .and_then(Value::as_str)
            .and_then(StopReason::from_name);
        // `error` is checked against the reason below.
        self.members(
            index,
            "stop payload",
            payload,
            &[REASON, STEPS, TOKENS, UNRUN_CALLS],
            &[ERROR],
        );
        if reason.is_none() && payload.contains_key(REASON) {
            let names: Vec<&str> = StopReason::ALL.iter().map(|r| r.as_str()).collect();
            let found = describe_member(payload, REASON);
            self.find(
                index,
                format!(
                    "stop payload: reason must be one of {}, found {found}",
                    names.join(", ")
                ),
            );
        }
        match (reason, payload.get(ERROR)) {
            (Some(StopReason::ModelError), Some(Value::String(_))) => {}
            (Some(StopReason::ModelError), other) => {
                let found = other.map_or(String::from("none"), describe);
                self.find(
                    index,
                    format!("stop payload: reason model_error needs an error sentence (a string), found {found}"),
                );
            }
            (Some(other), Some(_)) => self.find(
                index,
                format!("stop payload: error is present, but the reason is {other}; only model_error carries one"),
            ),
            _ => {}
        }
        let unrun = (self.calls.len() - self.answered) as u64;
        let checks = [
            (STEPS, self.steps, "assistant records"),
            (
                TOKENS,
                self.tokens,
                "the sum of the assistant records' tokens",
            ),
            (
                UNRUN_CALLS,
                unrun,
                "calls of the last turn with no tool record",
            ),
        ];
        for (member, want, what) in checks {
            match count_member(payload, member) {
                Ok(found) if found == want => {}
                Ok(_) if member == TOKENS && !self.tokens_known => {}
                Err(_) if !payload.contains_key(member) => {}
                Ok(found) => self.find(
                    index,
                    format!(
                        "stop payload: {member} is {found}, but the records give {want} ({what})"
                    ),
                ),
                Err(found) => self.find(
                    index,
                    format!(
                        "stop payload: {member} must be an integer from 0 to 2^53-1, found {found}"
                    ),
                ),
            }
        }
        // The stop settles the last turn: its unanswered calls are unrun, not owed.
        self.answered = self.calls.len();
        self.phase = Phase::Stopped(index, reason);
    }

    pub(super) fn resume(&mut self, index: u64, payload: &Object) {
        self.members(index, "resume payload", payload, &[AFTER], &[SETUP]);
        self.setup(index, RecordKind::Resume, payload);
        let after = payload.get(AFTER).and_then(Value::as_str);
        match (self.phase, after) {
            (Phase::Stopped(_, Some(reason)), Some(after)) if after == reason.as_str() => {}
            (Phase::Stopped(..), _) if !payload.contains_key(AFTER) => {}
            (Phase::Stopped(at, reason), _) => {
                let said = reason.map_or("no valid reason", |r| r.as_str());
                let found = describe_member(payload, AFTER);
                self.find(
                    index,
                    format!("resume payload: after must name the reason of the stop record at index {at} ({said}), found {found}"),
                );
            }
            _ => {}
        }
        self.phase = Phase::Running;
    }

    /// A `setup` record: its members, its reason, and its setup, in force from here on.
    pub(super) fn setup_record(&mut self, index: u64, payload: &Object) {
        self.members(index, "setup payload", payload, &[REASON, SETUP], &[]);
        let reason = payload.get(REASON);
        if reason.is_some()
            && reason
                .and_then(Value::as_str)
                .and_then(SetupReason::from_name)
                .is_none()
        {
            let found = describe_member(payload, REASON);
            self.find(
                index,
                format!("setup payload: reason must be tools_changed, found {found}"),
            );
        }
        self.setup(index, RecordKind::Setup, payload);
    }

    /// Reports members other than `required` and `optional`, and absent `required` ones.
    fn members(
        &mut self,
        index: u64,
        what: &str,
        payload: &Object,
        required: &[&str],
        optional: &[&str],
    ) {
        let missing: Vec<&str> = required
            .iter()
            .copied()
            .filter(|m| !payload.contains_key(m))
            .collect();
        if !missing.is_empty() {
            self.find(index, format!("{what}: missing {}", quoted(&missing)));
        }
        let extra: Vec<&str> = payload
            .iter()
            .map(|(k, _)| k)
            .filter(|k| !required.contains(k) && !optional.contains(k))
            .collect();
        if !extra.is_empty() {
            self.find(
                index,
                format!(
                    "{what}: unexpected {}, which the loop does not write",
                    quoted(&extra)
                ),
            );
        }
    }
}

/// The members an `assistant` payload's `provider` object may have.
const PROVIDER_MEMBERS: [&str; 7] = [
    CACHED_INPUT_TOKENS,
    FINISH_REASON,
    INPUT_TOKENS,
    MODEL,
    REQUEST_SHA256,
    RESPONSE_ID,
    RESPONSE_SHA256,
];
