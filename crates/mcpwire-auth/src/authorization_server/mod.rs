//! An embedded OAuth 2.1 authorization server for development and tests (not a production identity provider).
