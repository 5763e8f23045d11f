use std::io::Write;
use std::path::PathBuf;

use super::*;
use crate::error::EnvError;

fn file(name: &str, text: &str) -> (tempdir::Dir, PathBuf) {
    let dir = tempdir::Dir::new();
    let path = dir.0.join(name);
    std::fs::File::create(&path)
        .unwrap()
        .write_all(text.as_bytes())
        .unwrap();
    (dir, path)
}

/// A throwaway folder under the system temp dir, removed on drop.
mod tempdir {
    pub struct Dir(pub std::path::PathBuf);
    impl Dir {
        pub fn new() -> Self {
            use std::sync::atomic::{AtomicU64, Ordering};
            static NEXT: AtomicU64 = AtomicU64::new(0);
            let p = std::env::temp_dir().join(format!(
                "schedlab-data-{}-{}",
                std::process::id(),
                NEXT.fetch_add(1, Ordering::Relaxed)
            ));
            std::fs::create_dir_all(&p).unwrap();
            Dir(p)
        }
    }
    impl Drop for Dir {
        fn drop(&mut self) {
            let _ = std::fs::remove_dir_all(&self.0);
        }
    }
}

fn parse_error(e: EnvError) -> (usize, String, String) {
    match e {
        EnvError::Parse {
            line,
            field,
            message,
            ..
        } => (line, field, message),
        other => panic!("expected a parse error, got {other}"),
    }
}

#[test]
fn csv_picks_the_label_by_name_and_names_the_bad_field() {
    let (_d, p) = file("a.csv", "x,y,label\n1,2,a\n3,oops,b\n");
    let (line, field, message) =
        parse_error(load_csv(&p, "label", &[], NaPolicy::Error).unwrap_err());
    assert_eq!((line, field.as_str()), (3, "y"));
    assert!(message.contains("oops"));

    let (_d, p) = file("b.csv", "label,x,y\nb,1,2\na,3,4\n");
    let (x, y, dropped) = load_csv(&p, "label", &[], NaPolicy::Error).unwrap();
    assert_eq!(
        x,
        Features::Dense {
            cols: 2,
            values: vec![1.0, 2.0, 3.0, 4.0]
        }
    );
    assert_eq!(y.values, vec!["b", "a"]);
    assert_eq!(dropped, 0);

    let err = load_csv(&p, "target", &[], NaPolicy::Error)
        .unwrap_err()
        .to_string();
    assert!(err.contains("no label column `target`"), "{err}");
}

#[test]
fn csv_missing_values_follow_the_policy() {
    let (_d, p) = file("na.csv", "x,y,t\n1,NA,0\n2,3,1\n4,5,NA\n6,7,0\n");
    let (line, field, _) = parse_error(load_csv(&p, "t", &[], NaPolicy::Error).unwrap_err());
    assert_eq!((line, field.as_str()), (2, "y"));

    let (x, y, dropped) = load_csv(&p, "t", &[], NaPolicy::DropRow).unwrap();
    assert_eq!((x.rows(), y.values.len(), dropped), (2, 2, 2));

    // imputation keeps the row (as NaN until the training mean fills it); a missing label still drops
    let (x, _, dropped) = load_csv(&p, "t", &[], NaPolicy::ImputeMean).unwrap();
    assert_eq!((x.rows(), dropped), (3, 1));
    let Features::Dense { values, .. } = &x else {
        unreachable!()
    };
    assert!(values[1].is_nan());
}

#[test]
fn csv_rows_with_the_wrong_field_count_are_refused() {
    let (_d, p) = file("short.csv", "x,y,t\n1,2,0\n3,1\n");
    let err = load_csv(&p, "t", &[], NaPolicy::Error)
        .unwrap_err()
        .to_string();
    assert!(err.contains(":3:"), "{err}");
}

#[test]
fn libsvm_reads_one_based_sparse_rows_and_rejects_bad_ones() {
    let (_d, p) = file("a.svm", "+1 1:0.5 3:2\n-1 2:1\n");
    let (x, y) = load_libsvm(&p, Some(4)).unwrap();
    assert_eq!(
        x,
        Features::Sparse {
            cols: 4,
            indptr: vec![0, 2, 3],
            indices: vec![0, 2, 1],
            values: vec![0.5, 2.0, 1.0]
        }
    );
    assert_eq!(y.values, vec!["+1", "-1"]);
    for (text, expect) in [
        ("1 0:1\n", "1-based"),
        ("1 3:1 2:1\n", "increasing"),
        ("1 2-1\n", "index:value"),
        ("x 1:1\n", "not a number"),
        ("1 9:1\n", "exceeds"),
    ] {
        let (_d, p) = file("bad.svm", text);
        let err = load_libsvm(&p, Some(4)).unwrap_err().to_string();
        assert!(
            err.contains("bad.svm:1:") && err.contains(expect),
            "{text:?} gave {err}"
        );
    }
}

#[test]
fn split_is_seeded_and_scaling_uses_the_training_part_only() {
    let n = 50;
    let values: Vec<f32> = (0..n).map(|i| (i * i) as f32).collect();
    let labels = RawLabels {
        path: "m".into(),
        values: (0..n).map(|i| (i % 2).to_string()).collect(),
        lines: (2..n + 2).collect(),
    };
    let part = || {
        (
            Features::Dense {
                cols: 1,
                values: values.clone(),
            },
            labels.clone(),
        )
    };
    let a = prepare(part(), None, true, 0.2, 7, FeatureScaling::Standard).unwrap();
    let b = prepare(part(), None, true, 0.2, 7, FeatureScaling::Standard).unwrap();
    let c = prepare(part(), None, true, 0.2, 8, FeatureScaling::Standard).unwrap();
    assert_eq!(a.train, b.train);
    assert_ne!(a.train, c.train);
    assert_eq!((a.train.len(), a.validation.len()), (40, 10));
    let Features::Dense { values: train, .. } = &a.train.features else {
        unreachable!()
    };
    let mean = train.iter().sum::<f32>() / train.len() as f32;
    let var = train.iter().map(|v| (v - mean).powi(2)).sum::<f32>() / train.len() as f32;
    assert!(
        mean.abs() < 1e-4 && (var - 1.0).abs() < 1e-3,
        "train mean {mean} var {var}"
    );
    let Features::Dense { values: val, .. } = &a.validation.features else {
        unreachable!()
    };
    let val_mean = val.iter().sum::<f32>() / val.len() as f32;
    assert!(
        val_mean.abs() > 1e-3,
        "validation is scaled with the training statistics, not its own"
    );
}

#[test]
fn validation_labels_unknown_to_training_are_refused() {
    let raw = |vals: &[&str]| RawLabels {
        path: "v".into(),
        values: vals.iter().map(|s| s.to_string()).collect(),
        lines: (2..2 + vals.len()).collect(),
    };
    let train = (
        Features::Dense {
            cols: 1,
            values: vec![0.0, 1.0],
        },
        raw(&["a", "b"]),
    );
    let val = (
        Features::Dense {
            cols: 1,
            values: vec![0.0],
        },
        raw(&["c"]),
    );
    let err = prepare(train, Some(val), true, 0.2, 0, FeatureScaling::Standard)
        .unwrap_err()
        .to_string();
    assert!(err.contains("class `c`"), "{err}");
}

#[test]
fn numeric_classes_are_ordered_numerically() {
    let raw = RawLabels {
        path: "n".into(),
        values: vec!["10".into(), "9".into(), "-1".into()],
        lines: vec![2, 3, 4],
    };
    let enc = LabelEncoding::fit(true, &raw).unwrap();
    assert_eq!(enc.encode(&raw).unwrap(), vec![2.0, 1.0, 0.0]);
}

#[test]
fn shipped_datasets_load_with_their_documented_row_counts() {
    let root = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../data/datasets");
    let (x, y, _) = load_csv(
        &root.join("digits/digits.csv.gz"),
        "target",
        &[],
        NaPolicy::Error,
    )
    .unwrap();
    assert_eq!((x.rows(), x.cols(), y.values.len()), (1797, 64, 1797));
    let (x, _, _) = load_csv(
        &root.join("breast_cancer/breast_cancer.csv"),
        "target",
        &[],
        NaPolicy::Error,
    )
    .unwrap();
    assert_eq!((x.rows(), x.cols()), (569, 30));
    let (x, _, _) = load_csv(
        &root.join("diabetes/diabetes.csv"),
        "target",
        &[],
        NaPolicy::Error,
    )
    .unwrap();
    assert_eq!((x.rows(), x.cols()), (442, 10));
    let (x, y) = load_libsvm(&root.join("a9a/a9a.t.libsvm.gz"), Some(123)).unwrap();
    assert_eq!((x.rows(), x.cols()), (16281, 123));
    assert_eq!(y.values.iter().filter(|v| v.starts_with('+')).count(), 3846);
}

#[test]
fn min_max_scaling_maps_the_training_range_to_the_unit_interval() {
    let raw = |n: usize| RawLabels {
        path: "p".into(),
        values: (0..n).map(|i| (i % 2).to_string()).collect(),
        lines: (2..n + 2).collect(),
    };
    // column 0 spans 0..=255 in training; column 1 is constant; the validation row lies outside
    let train = (
        Features::Dense {
            cols: 2,
            values: vec![0.0, 5.0, 255.0, 5.0, 51.0, 5.0, f32::NAN, 5.0],
        },
        raw(4),
    );
    let val = (
        Features::Dense {
            cols: 2,
            values: vec![510.0, 7.0],
        },
        raw(1),
    );
    let p = prepare(train, Some(val), true, 0.2, 0, FeatureScaling::MinMax).unwrap();
    let Features::Dense { values, .. } = &p.train.features else {
        unreachable!()
    };
    assert_eq!(&values[..6], &[0.0, 0.0, 1.0, 0.0, 0.2, 0.0]);
    assert!(
        (values[6] - 0.4).abs() < 1e-6,
        "a missing value becomes the training mean, scaled: {}",
        values[6]
    );
    let Features::Dense { values, .. } = &p.validation.features else {
        unreachable!()
    };
    assert_eq!(values, &vec![2.0, 2.0]);
}
