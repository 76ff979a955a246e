//! Errors that callers show but do not take apart: a public struct around a private
//! kind enum, so the sentences stay the kind's and its variants stay out of the public
//! surface (issue 29 item 5). agentloop-core declares its own such errors with the same
//! macro (`__private::opaque_error`).

/// Declares a public error struct around a crate-private kind: `Display` and `Debug`
/// are the kind's (the same sentence and the same debug text as when the kind was the
/// public type), `core::error::Error` is implemented, and `From<kind>` lets `?` and
/// `.into()` wrap a kind where the error is made.
#[doc(hidden)]
#[macro_export]
macro_rules! opaque_error {
    ($(#[$attr:meta])* pub struct $name:ident($kind:ty);) => {
        $(#[$attr])*
        pub struct $name(pub(crate) $kind);

        impl From<$kind> for $name {
            fn from(kind: $kind) -> Self {
                $name(kind)
            }
        }

        impl core::fmt::Display for $name {
            fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
                core::fmt::Display::fmt(&self.0, f)
            }
        }

        impl core::fmt::Debug for $name {
            fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
                core::fmt::Debug::fmt(&self.0, f)
            }
        }

        impl core::error::Error for $name {}
    };
}
pub(crate) use crate::opaque_error;
