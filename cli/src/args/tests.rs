//! The command line's values and usage, read or refused.

use std::num::NonZeroU32;

use agentloop_core::durable::SyncPolicy;
use agentloop_core::provider::Provider;

use super::values::*;
use super::*;
use clap::CommandFactory;

#[test]
fn run_values_are_read_or_refused_with_the_form_expected() {
    assert_eq!(
        parse_model("openai:gpt-4.1-mini"),
        Ok(ModelSpec {
            provider: Provider::OpenAi,
            name: String::from("gpt-4.1-mini")
        })
    );
    // Only the first ':' splits: a model name may hold one (Ollama's `llama3:8b`).
    assert_eq!(
        parse_model("openai:llama3:8b").map(|m| m.name),
        Ok(String::from("llama3:8b"))
    );
    assert_eq!(
        parse_model("anthropic:claude-sonnet-4-5").map(|m| m.provider),
        Ok(Provider::Anthropic)
    );
    assert_eq!(parse_model("gpt-4o"), Err(ValueError::BadModel(None)));
    assert_eq!(
        parse_model("gemini:pro"),
        Err(ValueError::BadModel(Some(String::from("gemini"))))
    );
    assert_eq!(parse_model("openai:"), Err(ValueError::NoModelName));

    assert_eq!(
        parse_tool_limit("add=3"),
        Ok(ToolLimit {
            name: String::from("add"),
            limit: 3
        })
    );
    assert_eq!(
        parse_tool_limit("a=b=0").map(|t| t.name),
        Ok(String::from("a=b"))
    );
    for bad in [
        "add",
        "=3",
        "add=",
        "add=-1",
        "add=x",
        "add=9007199254740992",
    ] {
        assert_eq!(
            parse_tool_limit(bad),
            Err(ValueError::BadToolLimit),
            "{bad}"
        );
    }

    assert_eq!(parse_sync("always"), Ok(SyncPolicy::Always));
    assert_eq!(parse_sync("on-close"), Ok(SyncPolicy::OnClose));
    assert_eq!(
        parse_sync("every:8"),
        Ok(SyncPolicy::EveryN(NonZeroU32::new(8).unwrap()))
    );
    for bad in [
        "every:0",
        "every:",
        "every",
        "never",
        "every:-1",
        "every:4294967296",
    ] {
        assert_eq!(parse_sync(bad), Err(ValueError::BadSync), "{bad}");
    }
    assert_eq!(parse_positive("1"), Ok(1));
    assert_eq!(parse_positive("0"), Err(ValueError::NotPositive));
    assert_eq!(parse_tries("0"), Err(ValueError::NotPositive));
    assert_eq!(parse_parallel("0"), Err(ValueError::BadParallel));
    assert_eq!(parse_parallel("-1"), Err(ValueError::BadParallel));
    assert_eq!(parse_parallel("1"), Ok(1));
    assert_eq!(parse_parallel("64"), Ok(64));
    assert_eq!(
        parse_export_format("anthropic"),
        Ok(ExportFormat::History(Provider::Anthropic))
    );
    assert_eq!(parse_manifest_format("mcp"), Ok(ManifestFormat::Mcp));
    assert_eq!(
        parse_manifest_format("json"),
        Err(ValueError::BadManifestFormat)
    );
}

#[test]
fn command_lines_split_into_words_as_a_shell_would_without_expanding() {
    let words = |text: &str| split_words(text).unwrap();
    assert_eq!(
        words("npx -y  server /tmp/w"),
        ["npx", "-y", "server", "/tmp/w"]
    );
    assert_eq!(words("  a\tb\n"), ["a", "b"]);
    assert_eq!(
        words("node 'my dir/x.js' \"a \\\"b\\\" \\\\ \\n\""),
        ["node", "my dir/x.js", "a \"b\" \\ \\n"]
    );
    assert_eq!(words("a\\ b c"), ["a b", "c"]);
    assert_eq!(words("x'y'\"z\" '' \"\""), ["xyz", "", ""]);
    assert_eq!(words("$HOME *.txt ~"), ["$HOME", "*.txt", "~"]);
    for (bad, why) in [
        ("", "the command is empty"),
        ("   ", "the command is empty"),
        ("a 'b", "a ' is not closed"),
        ("a \"b", "a \" is not closed"),
        ("a \"b\\", "a \" is not closed"),
        ("a \\", "the command ends in a lone \\"),
    ] {
        assert_eq!(split_words(bad), Err(ValueError::BadCommand(why)), "{bad}");
    }
    assert_eq!(parse_export_format("mcp"), Err(ValueError::BadExportFormat));
    assert_eq!(parse_export_format("otlp"), Ok(ExportFormat::Otlp));
}

#[test]
fn command_line_definition_is_consistent() {
    Cli::command().debug_assert();
}
