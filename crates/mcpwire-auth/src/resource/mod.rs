//! The resource-server side: bearer token validation as a tower layer.
