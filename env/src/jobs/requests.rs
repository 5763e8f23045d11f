//! A job's container request against the machines: scaled by a size level, and whether a
//! machine type fits one empty (the checks refuse a job no machine fits).

use super::schema::{GPU_MILLI, MachineSpec};

/// A container request scaled by a size factor; GPU amounts of a whole GPU or more stay
/// whole GPUs, smaller ones stay shares.
pub fn scaled_request(request: [u32; 3], factor: f64) -> [u32; 3] {
    let scale = |v: u32| ((v as f64 * factor).round() as u32).max(u32::from(v > 0));
    let gpu = request[2] as f64 * factor;
    let gpu = if request[2] == 0 {
        0
    } else if gpu >= GPU_MILLI as f64 {
        (gpu / GPU_MILLI as f64).round() as u32 * GPU_MILLI
    } else {
        (gpu.round() as u32).max(1)
    };
    [scale(request[0]), scale(request[1]), gpu]
}

/// Whether one container fits on an empty machine of this type.
pub fn fits_empty(machine: &MachineSpec, request: [u32; 3]) -> bool {
    request[0] <= machine.cpu_milli()
        && request[1] <= machine.mem_mib()
        && request[2] <= machine.gpus * GPU_MILLI
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn scaled_requests_keep_gpus_whole_above_one() {
        assert_eq!(scaled_request([1000, 2048, 500], 0.5), [500, 1024, 250]);
        assert_eq!(scaled_request([1000, 2048, 2000], 0.5), [500, 1024, 1000]);
        assert_eq!(scaled_request([1000, 2048, 1000], 2.0), [2000, 4096, 2000]);
        assert_eq!(scaled_request([3, 1, 0], 0.1), [1, 1, 0]);
    }
}
