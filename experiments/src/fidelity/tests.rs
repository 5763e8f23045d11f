use super::measure::check_plan;
use super::report::ranks;
use super::*;

#[test]
fn kendall_tau_counts_agreeing_pairs() {
    assert_eq!(kendall_tau(&[1.0, 2.0, 3.0], &[10.0, 20.0, 30.0]), 1.0);
    assert_eq!(kendall_tau(&[1.0, 2.0, 3.0], &[30.0, 20.0, 10.0]), -1.0);
    // one of three pairs swapped: (2 - 1) / 3
    assert!((kendall_tau(&[1.0, 2.0, 3.0], &[10.0, 30.0, 20.0]) - 1.0 / 3.0).abs() < 1e-12);
    assert_eq!(ranks(&[3.0, 1.0, 2.0]), vec![3, 1, 2]);
}

#[test]
fn calibration_on_compared_episodes_is_refused() {
    let plan = Plan {
        policies: vec!["static".into(), "raes".into()],
        seeds: vec![0, 1],
        calibration_policies: vec!["random".into(), "raes".into()],
        calibration_seeds: vec![1, 7],
    };
    let err = check_plan(&plan).unwrap_err().to_string();
    assert!(err.contains("raes on seeds [1]"), "{err}");
    let plan = Plan {
        calibration_seeds: vec![7],
        ..plan
    };
    assert!(check_plan(&plan).is_ok());
}
