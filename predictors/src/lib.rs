//! # schedlab-predictors
//!
//! Will own demand predictors behind one trait (LSTM, EWMA, AR, last value), fitted on usage
//! sequences (DESIGN §3). It must know nothing of schedulers, environments' internals,
//! training loops or the command line.
//!
//! Empty until the RAES issue lands.
