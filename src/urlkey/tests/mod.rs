//! Tests of URL keys on real and hostile inputs, of the rules file and its schema, and on the corpus URLs.

mod corpus;
mod hostile;
mod keys;
mod props;
mod rules_file;
