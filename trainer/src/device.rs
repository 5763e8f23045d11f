//! `--device`: where learned agents' networks train and act. Chosen once per process, like
//! the thread count; the simulated training job is not affected (it always runs on flex).

use std::sync::OnceLock;

use burn::tensor::Device;

/// The device and the name it was chosen by.
static CHOSEN: OnceLock<(Device, String)> = OnceLock::new();

pub const NAMES: &str = "flex, ndarray, cuda[:N], libtorch, libtorch-cuda[:N]";

/// Parses a device name: `flex` (default, pure Rust), `ndarray`, with the `cuda` cargo feature
/// `cuda[:N]` (burn's CubeCL backend on an NVIDIA GPU), and with the `tch` feature `libtorch`
/// (CPU) and `libtorch-cuda[:N]`.
pub fn parse(name: &str) -> anyhow::Result<Device> {
    match name {
        "flex" => Ok(Device::flex()),
        #[allow(deprecated)] // burn marks ndarray deprecated in favour of flex; still offered
        "ndarray" => Ok(Device::ndarray()),
        "libtorch" => libtorch(None),
        _ => {
            if let Some(index) = gpu_index(name, "libtorch-cuda")? {
                libtorch(Some(index))
            } else if let Some(index) = gpu_index(name, "cuda")? {
                cuda(index)
            } else {
                anyhow::bail!("unknown device `{name}`; available: {NAMES}")
            }
        }
    }
}

/// The GPU index of `prefix` or `prefix:N` (0 for the bare prefix); `None` for another name.
fn gpu_index(name: &str, prefix: &str) -> anyhow::Result<Option<usize>> {
    match name.strip_prefix(prefix) {
        None => Ok(None),
        Some("") => Ok(Some(0)),
        Some(rest) => rest
            .strip_prefix(':')
            .and_then(|i| i.parse::<usize>().ok())
            .map(Some)
            .ok_or_else(|| anyhow::anyhow!("device `{name}`: expected {prefix}:N")),
    }
}

/// The GPU `index`, checked by a one-kernel sum: the backend loads the driver and NVRTC at
/// first use and panics where either is missing, so the probe turns that into an error at
/// start-up that names the device.
#[cfg(feature = "cuda")]
fn cuda(index: usize) -> anyhow::Result<Device> {
    use burn::tensor::{Tensor, TensorData};
    use std::sync::{Arc, Mutex};
    let device = Device::cuda(index);
    // the backend's own threads panic with the cause; the probe's thread sees only a closed
    // channel, so every panic's message is kept for the error
    let panics = Arc::new(Mutex::new(Vec::new()));
    let kept = Arc::clone(&panics);
    let hook = std::panic::take_hook();
    std::panic::set_hook(Box::new(move |info| {
        kept.lock()
            .expect("no panic holds it")
            .push(info.to_string())
    }));
    let probe = schedlab_artifacts::without_panic(|| {
        Tensor::<1>::from_data(TensorData::new(vec![1.0f32, 2.0], [2]), &device)
            .sum()
            .into_data()
            .try_to_vec::<f32>()
    });
    std::panic::set_hook(hook);
    match probe {
        Ok(Ok(sum)) if sum == [3.0] => Ok(device),
        Ok(sum) => anyhow::bail!("device cuda:{index} summed 1 + 2 to {sum:?}"),
        Err(_) => anyhow::bail!(
            "device cuda:{index} cannot be used (it needs an NVIDIA driver and NVRTC): {}",
            panics.lock().expect("the hook is gone").join("; ")
        ),
    }
}

#[cfg(not(feature = "cuda"))]
fn cuda(_index: usize) -> anyhow::Result<Device> {
    anyhow::bail!(
        "this schedlab was built without CUDA: rebuild with `--features cuda` (docs/learned.md, \"GPU\")"
    )
}

#[cfg(feature = "tch")]
#[allow(deprecated)] // burn marks burn-tch deprecated; it is the libtorch route the workbench offers
fn libtorch(cuda: Option<usize>) -> anyhow::Result<Device> {
    Ok(match cuda {
        None => Device::libtorch(),
        Some(index) => Device::libtorch_cuda(index),
    })
}

#[cfg(not(feature = "tch"))]
fn libtorch(_cuda: Option<usize>) -> anyhow::Result<Device> {
    anyhow::bail!(
        "this schedlab was built without libtorch: rebuild with `--features tch` (docs/learned.md, \"libtorch\")"
    )
}

/// Sets the process's device by its name; call once, before any network is built.
pub fn choose(name: &str) -> anyhow::Result<()> {
    let device = parse(name)?;
    CHOSEN
        .set((device, name.to_owned()))
        .expect("the device is chosen once, at start-up");
    Ok(())
}

/// The chosen device (flex if none was), with autodiff on for training.
pub fn agents() -> Device {
    CHOSEN
        .get()
        .map_or_else(Device::flex, |(device, _)| device.clone())
        .autodiff()
}

/// The chosen device's name, as given to `--device` (`flex` if none was).
pub fn name() -> &'static str {
    CHOSEN.get().map_or("flex", |(_, name)| name.as_str())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names_parse_and_unknown_or_unbuilt_devices_are_refused_clearly() {
        assert!(parse("flex").is_ok());
        assert!(parse("ndarray").is_ok());
        let err = parse("gpu").unwrap_err().to_string();
        assert!(
            err.contains("unknown device `gpu`") && err.contains("flex"),
            "{err}"
        );
        for (name, expected) in [
            ("libtorch-cuda:x", "libtorch-cuda:N"),
            ("cuda:", "cuda:N"),
            ("cuda-1", "cuda:N"),
        ] {
            let err = parse(name).unwrap_err().to_string();
            assert!(err.contains(expected), "{name}: {err}");
        }
        if cfg!(not(feature = "tch")) {
            let err = parse("libtorch").unwrap_err().to_string();
            assert!(err.contains("--features tch"), "{err}");
        }
        if cfg!(not(feature = "cuda")) {
            for name in ["cuda", "cuda:1"] {
                let err = parse(name).unwrap_err().to_string();
                assert!(err.contains("--features cuda"), "{name}: {err}");
            }
        }
    }
}
