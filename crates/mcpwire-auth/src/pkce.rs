//! PKCE (RFC 7636): code verifiers and their S256 challenges.
