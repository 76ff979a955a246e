//! Everything `run` settles before it writes: the task, the budgets and tool limits (a
//! resumed run's are the task record's), the tools, the API key's variable and the
//! HTTP model.

use std::collections::BTreeMap;
use std::time::Duration;

use agentloop_core::agent::{check_task, Budgets};
use agentloop_core::driver::Resumable;
use agentloop_core::provider::Provider;
use agentloop_http::{default_key_variable, HttpConfig, HttpModel};

use super::stated::Request;
use crate::args::RunArgs;
use crate::failure::{Failure, RunFailure, SetupFailure};
use crate::input::Source;

/// The `max_output_tokens` an Anthropic request gets when `--max-output-tokens` is not
/// given (Anthropic requires one).
pub const ANTHROPIC_DEFAULT_MAX_OUTPUT_TOKENS: u64 = 4096;

/// What the run is: the task, its budgets and the tools' call limits.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Plan {
    /// The task text.
    pub task: String,
    /// The budgets.
    pub budgets: Budgets,
    /// Each limited tool's most runs.
    pub limits: BTreeMap<String, u64>,
}

/// The task given by `--task` or `--task-file`, if either was; one that is empty or
/// only white space is refused ([`check_task`]), naming where it came from.
pub fn given_task(args: &RunArgs) -> Result<Option<String>, Failure> {
    let task = read_task(args)?;
    if let Some(Err(error)) = task.as_deref().map(check_task) {
        let name = match &args.task_file {
            Some(path) if args.task.is_none() => Source::from_arg(path).name(),
            _ => String::from("--task"),
        };
        return Err(Failure::Setup(SetupFailure::BadTask { name, error }));
    }
    Ok(task)
}

/// The text of `--task` or `--task-file`, if either was given.
fn read_task(args: &RunArgs) -> Result<Option<String>, Failure> {
    if let Some(task) = &args.task {
        return Ok(Some(task.clone()));
    }
    let Some(path) = &args.task_file else {
        return Ok(None);
    };
    let source = Source::from_arg(path);
    let name = source.name();
    let bytes = source
        .read_document()
        .map_err(|error| Failure::reading(name.clone(), error))?;
    String::from_utf8(bytes).map(Some).map_err(|e| {
        Failure::Setup(SetupFailure::TaskNotUtf8 {
            name,
            offset: e.utf8_error().valid_up_to(),
        })
    })
}

/// The budgets the flags give.
pub fn given_budgets(args: &RunArgs) -> Budgets {
    Budgets {
        max_steps: args.max_steps,
        max_tokens: args.max_tokens,
        max_tool_calls: args.max_tool_calls,
        max_total_tokens: args.max_total_tokens,
        stop_sentinel: args.stop_sentinel.clone(),
    }
}

/// The `--tool-limit`s as a map; a tool named twice is refused.
pub fn given_limits(args: &RunArgs) -> Result<BTreeMap<String, u64>, Failure> {
    let mut limits = BTreeMap::new();
    for limit in &args.tool_limits {
        if limits.insert(limit.name.clone(), limit.limit).is_some() {
            return Err(Failure::Setup(SetupFailure::ToolLimitTwice(
                limit.name.clone(),
            )));
        }
    }
    Ok(limits)
}

/// A new run's plan: the task (required), the flags' budgets and limits.
pub fn new_plan(args: &RunArgs, task: Option<String>, out: &str) -> Result<Plan, Failure> {
    let task = task.ok_or_else(|| Failure::Run(RunFailure::NothingToResume(out.to_owned())))?;
    let budgets = given_budgets(args);
    budgets
        .check()
        .map_err(|e| Failure::Setup(SetupFailure::Budgets(e)))?;
    Ok(Plan {
        task,
        budgets,
        limits: given_limits(args)?,
    })
}

/// A resumed run's plan: what the task record of `recorded` states (its task, budgets
/// and tool limits). A flag given must say what the record says (a resumed run keeps
/// the recorded ones).
pub fn resumed_plan(
    args: &RunArgs,
    task: Option<String>,
    out: &str,
    recorded: &Resumable,
) -> Result<Plan, Failure> {
    let stated = recorded.stated().map_err(|e| {
        Failure::Run(RunFailure::ResumeTask {
            name: out.to_owned(),
            what: e.to_string(),
        })
    })?;
    let plan = Plan {
        task: stated.task,
        budgets: stated.budgets,
        limits: stated.tool_limits,
    };
    same_as_recorded(args, task, out, &plan)?;
    Ok(plan)
}

/// Refuses a flag of a resumed run that says other than the recorded `plan`: the task,
/// a budget, the stop sentinel, a tool limit.
fn same_as_recorded(
    args: &RunArgs,
    task: Option<String>,
    out: &str,
    plan: &Plan,
) -> Result<(), Failure> {
    let (recorded_task, budgets, limits) = (plan.task.as_str(), &plan.budgets, &plan.limits);
    let differs = |flag: String, recorded: String| {
        Failure::Run(RunFailure::ResumeDiffers {
            name: out.to_owned(),
            flag,
            recorded,
        })
    };
    if let Some(task) = task {
        if task != recorded_task {
            return Err(differs(
                format!("the task {}", crate::record_line::quoted(&task)),
                format!("the task {}", crate::record_line::quoted(recorded_task)),
            ));
        }
    }
    let given = given_budgets(args);
    for (member, given) in given.limits() {
        let recorded = budgets.limits().find(|(name, _)| *name == member);
        if recorded.map(|(_, n)| n) != Some(given) {
            let recorded = match recorded {
                Some((_, n)) => format!("{member} {n}"),
                None => format!("no {member}"),
            };
            let flag = member.replace('_', "-");
            return Err(differs(format!("--{flag} {given}"), recorded));
        }
    }
    if let Some(sentinel) = &given.stop_sentinel {
        if Some(sentinel) != budgets.stop_sentinel.as_ref() {
            let recorded = match &budgets.stop_sentinel {
                Some(s) => format!("stop_sentinel {}", crate::record_line::quoted(s)),
                None => String::from("no stop_sentinel"),
            };
            return Err(differs(
                format!("--stop-sentinel {}", crate::record_line::quoted(sentinel)),
                recorded,
            ));
        }
    }
    for (name, given) in given_limits(args)? {
        let recorded = limits.get(&name).copied();
        if recorded != Some(given) {
            let recorded = match recorded {
                Some(n) => format!("the limit {n} for {name}"),
                None => format!("no limit for {name}"),
            };
            return Err(differs(format!("--tool-limit {name}={given}"), recorded));
        }
    }
    Ok(())
}

/// Whether `base_url` names this machine (`localhost`, `127.x.x.x`, `[::1]`): a local
/// server, which needs no key.
pub fn is_loopback(base_url: &str) -> bool {
    let shown = agentloop_http::without_userinfo(base_url);
    let Some((_, rest)) = shown.split_once("://") else {
        return false;
    };
    let host_port = rest.split(['/', '?', '#']).next().unwrap_or("");
    let host = if let Some(v6) = host_port.strip_prefix('[') {
        v6.split(']').next().unwrap_or("")
    } else {
        host_port.split(':').next().unwrap_or("")
    };
    let host = host.to_ascii_lowercase();
    host == "localhost"
        || host == "::1"
        || host.strip_prefix("127.").is_some_and(|r| {
            r.split('.').count() == 3 && r.split('.').all(|p| p.parse::<u8>().is_ok())
        })
}

/// The variable the key is read from, or `None` for no key:
/// `--api-key-env ''` sends none; `--api-key-env VAR` reads VAR, which must be set;
/// without it the provider's default variable, which must be set unless `base_url` is
/// a loopback one (then, unset, no key is sent). `is_set` says whether a variable holds
/// a non-empty value.
pub fn key_variable(
    provider: Provider,
    base_url: &str,
    api_key_env: Option<&str>,
    is_set: &dyn Fn(&str) -> bool,
) -> Result<Option<String>, Failure> {
    match api_key_env {
        Some("") => Ok(None),
        Some(variable) => {
            if is_set(variable) {
                Ok(Some(variable.to_owned()))
            } else {
                Err(Failure::Setup(SetupFailure::KeyNotSet {
                    variable: variable.to_owned(),
                    named: true,
                }))
            }
        }
        None => {
            let variable = default_key_variable(provider);
            if is_set(variable) {
                Ok(Some(variable.to_owned()))
            } else if is_loopback(base_url) {
                Ok(None)
            } else {
                Err(Failure::Setup(SetupFailure::KeyNotSet {
                    variable: variable.to_owned(),
                    named: false,
                }))
            }
        }
    }
}

/// Whether the environment variable `name` holds a non-empty value.
pub fn env_is_set(name: &str) -> bool {
    std::env::var_os(name).is_some_and(|v| !v.is_empty())
}

/// The HTTP model that asks `request` ([`super::stated::Request`]), with the key the
/// flags name.
pub fn http_model(args: &RunArgs, request: &Request) -> Result<HttpModel, Failure> {
    let provider = request.model.provider;
    let key = key_variable(
        provider,
        &request.base_url,
        args.api_key_env.as_deref(),
        &env_is_set,
    )?;
    let config = HttpConfig {
        max_tries: args.http_tries,
        initial_backoff: Duration::from_millis(args.http_backoff_ms),
        call_timeout: Duration::from_secs(args.http_timeout),
        ..HttpConfig::default()
    };
    let options = request.request_options();
    HttpModel::with_config(provider, &request.base_url, options, key.as_deref(), config)
        .map_err(|e| Failure::Setup(SetupFailure::Model(e)))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn loopback_urls_are_told_apart() {
        for url in [
            "http://127.0.0.1:8080/v1",
            "http://localhost/v1",
            "https://LOCALHOST:1",
            "http://[::1]:99/v1",
            "http://127.1.2.3",
            "http://user@127.0.0.1:5/v1",
        ] {
            assert!(is_loopback(url), "{url}");
        }
        for url in [
            "https://api.openai.com/v1",
            "http://127.0.0.1.evil.example/v1",
            "http://localhost.example",
            "http://10.0.0.1",
            "127.0.0.1:8080",
            "http://127.0.0.1@evil.example/v1",
            "http://[::2]/v1",
        ] {
            assert!(!is_loopback(url), "{url}");
        }
    }

    #[test]
    fn the_key_variable_is_chosen_by_the_rules_documented() {
        let none_set = |_: &str| false;
        let all_set = |_: &str| true;
        let local = "http://127.0.0.1:9/v1";
        let remote = "https://api.openai.com/v1";
        // The default variable when set, wherever the server is.
        for url in [local, remote] {
            assert_eq!(
                key_variable(Provider::OpenAi, url, None, &all_set).unwrap(),
                Some(String::from("OPENAI_API_KEY"))
            );
        }
        assert_eq!(
            key_variable(Provider::Anthropic, remote, None, &all_set).unwrap(),
            Some(String::from("ANTHROPIC_API_KEY"))
        );
        // Unset: no key for a loopback server, refused for any other.
        assert_eq!(
            key_variable(Provider::OpenAi, local, None, &none_set).unwrap(),
            None
        );
        let refused = key_variable(Provider::OpenAi, remote, None, &none_set).unwrap_err();
        assert!(
            refused
                .to_string()
                .starts_with("the API key variable OPENAI_API_KEY is not set"),
            "{refused}"
        );
        // A named variable must be set, even for a loopback server.
        assert_eq!(
            key_variable(Provider::OpenAi, local, Some("MY_KEY"), &all_set).unwrap(),
            Some(String::from("MY_KEY"))
        );
        let refused = key_variable(Provider::OpenAi, local, Some("MY_KEY"), &none_set).unwrap_err();
        assert!(refused.to_string().contains("MY_KEY"), "{refused}");
        // '' sends no key, whatever is set.
        assert_eq!(
            key_variable(Provider::OpenAi, remote, Some(""), &all_set).unwrap(),
            None
        );
    }
}
