//! Requests.
