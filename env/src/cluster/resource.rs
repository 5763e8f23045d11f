//! The resources a container holds and their amounts, in one order everywhere.

/// The resources a container holds, in this order everywhere (`[cpu, mem, gpu]` arrays).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Resource {
    Cpu = 0,
    Mem = 1,
    Gpu = 2,
}

impl Resource {
    pub const ALL: [Resource; 3] = [Resource::Cpu, Resource::Mem, Resource::Gpu];

    pub fn name(self) -> &'static str {
        match self {
            Resource::Cpu => "cpu",
            Resource::Mem => "mem",
            Resource::Gpu => "gpu",
        }
    }
}

/// Amounts per resource: CPU cores, memory GB, GPUs (fractions allowed: shared GPUs).
pub type Amounts = [f64; 3];
