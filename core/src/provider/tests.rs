//! Tests of the provider codecs.
