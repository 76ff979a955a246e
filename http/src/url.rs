//! A base URL's userinfo (`user:password@`): what it is, and the URL shown without it —
//! `agentloop_core::redact`'s (internal), which the MCP client shares.

pub(crate) use agentloop_core::redact::userinfo;
pub use agentloop_core::redact::without_userinfo;

#[cfg(test)]
mod tests {
    use crate::{BuildError, HttpModel};
    use agentloop_core::provider::{Provider, RequestOptions};

    fn build(base: &str) -> Result<HttpModel, BuildError> {
        HttpModel::new(Provider::OpenAi, base, RequestOptions::new("m"), None)
    }

    #[test]
    fn a_userinfo_is_never_shown_and_never_beside_an_openai_key() {
        let base = "https://user:s3cret@host:8443/v1";
        let model = build(base).unwrap();
        assert_eq!(model.url(), "https://host:8443/v1/chat/completions");
        assert!(!format!("{model:?}").contains("s3cret"));
        let refused = build("https://user:s3cret@host/v1?x=1").unwrap_err();
        assert_eq!(
            refused.to_string(),
            "the base URL \"https://host/v1?x=1\" has a query (the endpoint's path is added after it)"
        );
        let with_key =
            |provider| HttpModel::new(provider, base, RequestOptions::new("m"), Some("KEY"));
        let refused = with_key(Provider::OpenAi).unwrap_err();
        assert_eq!(
            refused,
            BuildError::UserinfoAndKey(String::from("https://host:8443/v1"))
        );
        assert!(!refused.to_string().contains("s3cret"), "{refused}");
        // Anthropic's key has a header of its own.
        assert_eq!(
            with_key(Provider::Anthropic).unwrap().url(),
            "https://host:8443/v1/messages"
        );
    }
}
