//! Fixture generator (filled in below).
