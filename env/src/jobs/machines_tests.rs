//! Placement, release and fragmentation on small clusters.

use super::machines::*;
use super::schema::{MAX_GPUS, MachineSpec};

fn machine(gpus: u32) -> MachineSpec {
    MachineSpec {
        name: "m".into(),
        count: 1,
        cpu_cores: 8.0,
        mem_gb: 16.0,
        gpus,
        gpu_model: String::new(),
    }
}

#[test]
fn gpu_shares_pack_on_one_gpu_under_best_fit_and_spread_under_worst_fit() {
    let shapes = [[1000, 1024, 500]];
    for (placement, expected) in [(Placement::BestFit, 1), (Placement::WorstFit, 2)] {
        let mut c = Cluster::new(&[machine(2)], &shapes);
        let placed = c
            .place([1000, 1024, 500], 2, placement, Models::ANY)
            .unwrap();
        let used_gpus = (0..MAX_GPUS)
            .filter(|&k| placed.iter().any(|p| p.gpu_take[k] > 0))
            .count();
        assert_eq!(used_gpus, expected, "{placement:?}");
    }
}

#[test]
fn a_request_within_some_models_goes_only_to_their_machines() {
    let of = |model: &str| MachineSpec {
        gpu_model: model.into(),
        ..machine(1)
    };
    let mut c = Cluster::new(&[of("T4"), of("P100"), of("T4")], &[[1000, 1024, 1000]]);
    let p100 = c.models(&["P100".into()]).unwrap();
    assert_eq!(c.models(&["A10".into()]), None);
    assert!(!c.can_place([1000, 1024, 1000], 2, p100));
    for placement in Placement::ALL {
        let placed = c.place([1000, 1024, 1000], 1, placement, p100).unwrap();
        assert_eq!(placed[0].machine, 1, "{placement:?}");
        c.release(&placed[0]);
    }
    c.place([1000, 1024, 1000], 1, Placement::BestFit, p100)
        .unwrap();
    // the P100 is taken: the two T4s stay free, yet nothing fits within P100
    assert!(
        c.place([1000, 1024, 1000], 1, Placement::BestFit, p100)
            .is_none()
    );
    assert!(c.can_place([1000, 1024, 1000], 2, Models::ANY));
}

#[test]
fn placement_is_all_or_nothing_and_release_restores() {
    let mut c = Cluster::new(&[machine(1), machine(1)], &[[1000, 1024, 1000]]);
    let before = c.free_total();
    assert!(
        c.place([1000, 1024, 1000], 3, Placement::BestFit, Models::ANY)
            .is_none()
    );
    assert_eq!(c.free_total(), before);
    let placed = c
        .place([1000, 1024, 1000], 2, Placement::BestFit, Models::ANY)
        .unwrap();
    assert_ne!(placed[0].machine, placed[1].machine);
    assert_eq!(c.free_total()[2], 0);
    placed.iter().for_each(|p| c.release(p));
    assert_eq!(c.free_total(), before);
}

#[test]
fn a_remnant_smaller_than_every_share_is_stranded() {
    // only 600-milli shares exist: after one, the 400 left on that GPU is stranded
    let mut c = Cluster::new(&[machine(1)], &[[1000, 1024, 600]]);
    assert_eq!(c.stranded_total(), [0.0, 0.0]);
    c.place([1000, 1024, 600], 1, Placement::BestFit, Models::ANY)
        .unwrap();
    assert_eq!(c.stranded_total()[0], 400.0);
}

#[test]
fn fragmentation_is_weighted_by_how_common_each_request_is() {
    // three quarters of the jobs take a whole GPU, a quarter 300 milli; two GPUs
    let shapes = [
        [1000, 1024, 1000],
        [1000, 1024, 1000],
        [1000, 1024, 1000],
        [1000, 1024, 300],
    ];
    let mut c = Cluster::new(&[machine(2)], &shapes);
    c.place([1000, 1024, 300], 1, Placement::BestFit, Models::ANY)
        .unwrap();
    // 700 left on the shared GPU: whole-GPU jobs cannot use it, 300-milli jobs can
    assert!(
        (c.stranded_total()[0] - 0.75 * 700.0).abs() < 1e-9,
        "{:?}",
        c.stranded_total()
    );
}
