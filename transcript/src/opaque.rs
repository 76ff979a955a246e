//! Errors that callers show but do not take apart: a public struct around a private
//! kind enum, so the sentences stay the kind's and its variants stay out of the public
//! surface (issue 29 item 5). The one way the workspace writes them: this crate's
//! errors, agentloop-tlog's and agentloop-core's use this macro
//! (`agentloop_transcript::__private::opaque_error`).

/// Declares a public error struct around a crate-private kind: `Display` is the kind's
/// (the same sentence as when the kind was the public type), `core::error::Error` is
/// implemented, and `From<kind>` lets `?` and `.into()` wrap a kind where the error is
/// made. `Debug` is the kind's too (the same debug text as when the kind was public);
/// written `pub struct Name(Kind) debug(tuple);`, it is the struct's own, `Name(Kind)`,
/// as `#[derive(Debug)]` writes it (an error that was a struct from the start).
///
/// `#[macro_export]` puts it at this crate's root; it is hidden there and named by its
/// path in `__private`, outside the public surface.
#[doc(hidden)]
#[macro_export]
macro_rules! opaque_error {
    ($(#[$attr:meta])* pub struct $name:ident($kind:ty);) => {
        $crate::opaque_error!(@shown $(#[$attr])* pub struct $name($kind););

        impl ::core::fmt::Debug for $name {
            fn fmt(&self, f: &mut ::core::fmt::Formatter<'_>) -> ::core::fmt::Result {
                ::core::fmt::Debug::fmt(&self.0, f)
            }
        }
    };
    ($(#[$attr:meta])* pub struct $name:ident($kind:ty) debug(tuple);) => {
        $crate::opaque_error!(@shown $(#[$attr])* pub struct $name($kind););

        impl ::core::fmt::Debug for $name {
            fn fmt(&self, f: &mut ::core::fmt::Formatter<'_>) -> ::core::fmt::Result {
                f.debug_tuple(stringify!($name)).field(&self.0).finish()
            }
        }
    };
    (@shown $(#[$attr:meta])* pub struct $name:ident($kind:ty);) => {
        $(#[$attr])*
        pub struct $name(pub(crate) $kind);

        impl From<$kind> for $name {
            fn from(kind: $kind) -> Self {
                $name(kind)
            }
        }

        impl ::core::fmt::Display for $name {
            fn fmt(&self, f: &mut ::core::fmt::Formatter<'_>) -> ::core::fmt::Result {
                ::core::fmt::Display::fmt(&self.0, f)
            }
        }

        impl ::core::error::Error for $name {}
    };
}
pub(crate) use crate::opaque_error;
