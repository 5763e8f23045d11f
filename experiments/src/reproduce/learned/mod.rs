//! `reproduce learned`: learned schedulers against the best heuristic on held-out trace
//! windows (`section.rs`), with the paired bar and its statistics (`bar.rs`), the rows the
//! tables compare (`line.rs`), the lower bounds (`room.rs`), the later test period
//! (`later.rs`), the unfinished jobs (`unfinished.rs`) and the ablation (`ablation.rs`).

mod ablation;
pub(super) mod bar;
mod later;
pub(super) mod line;
mod room;
mod section;
mod training;
pub(super) mod unfinished;

pub(super) use section::{learned, windows_in};
