//! `OpenAI` and `Anthropic`: the built-in HTTP models (crate agentloop-http), run on a
//! thread of their own (`model::ThreadedModel`) so that Ctrl-C abandons a turn still
//! waiting for the provider.

use agentloop_core::model::ThreadedModel;
use agentloop_core::provider::{Provider, RequestOptions};
use agentloop_core::vocabulary::Setup;
use agentloop_http::{HttpModel, ANTHROPIC_BASE_URL, OPENAI_BASE_URL};
use pyo3::prelude::*;

use crate::errors::LoopError;

/// A provider's model over HTTP: what to ask, where, with the key from which variable.
#[pyclass(module = "agentloop", frozen)]
pub struct Provided {
    provider: Provider,
    base_url: String,
    options: RequestOptions,
    key_env: Option<String>,
}

impl Provided {
    /// What the setup records of this model (no tools yet): the provider and model,
    /// the endpoint without credentials, the system prompt and the options.
    pub fn setup(&self) -> Setup {
        crate::setup::of_http_model(self.provider, &self.base_url, &self.options)
    }

    /// The model, started on its own thread.
    pub fn start(&self) -> PyResult<ThreadedModel> {
        let model = HttpModel::new(
            self.provider,
            &self.base_url,
            self.options.clone(),
            self.key_env.as_deref(),
        )
        .map_err(|e| LoopError::new_err(e.to_string()))?;
        ThreadedModel::start(model)
            .map_err(|e| LoopError::new_err(format!("the model's thread could not start: {e}")))
    }
}

/// The request options of the constructors' arguments.
fn options(
    model: String,
    max_output_tokens: Option<u64>,
    system: Option<String>,
) -> RequestOptions {
    let mut options = RequestOptions::new(model);
    options.max_output_tokens = max_output_tokens;
    options.system = system;
    options
}

/// OpenAI's Chat Completions (or a compatible server at `base_url`), the key read from
/// the environment variable `key_env` when the run starts (`None`: no key).
#[pyfunction]
#[pyo3(name = "OpenAI", signature = (model, *, base_url = None, key_env = Some(String::from("OPENAI_API_KEY")), max_output_tokens = None, system = None))]
pub fn openai(
    model: String,
    base_url: Option<String>,
    key_env: Option<String>,
    max_output_tokens: Option<u64>,
    system: Option<String>,
) -> Provided {
    Provided {
        provider: Provider::OpenAi,
        base_url: base_url.unwrap_or_else(|| String::from(OPENAI_BASE_URL)),
        options: options(model, max_output_tokens, system),
        key_env,
    }
}

/// Anthropic's Messages API (or a compatible server at `base_url`), the key read from
/// `key_env` when the run starts.
#[pyfunction]
#[pyo3(name = "Anthropic", signature = (model, *, base_url = None, key_env = Some(String::from("ANTHROPIC_API_KEY")), max_output_tokens = None, system = None))]
pub fn anthropic(
    model: String,
    base_url: Option<String>,
    key_env: Option<String>,
    max_output_tokens: Option<u64>,
    system: Option<String>,
) -> Provided {
    Provided {
        provider: Provider::Anthropic,
        base_url: base_url.unwrap_or_else(|| String::from(ANTHROPIC_BASE_URL)),
        options: options(model, max_output_tokens, system),
        key_env,
    }
}
