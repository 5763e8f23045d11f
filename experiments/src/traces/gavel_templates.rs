//! Model templates for the job types of a measured throughput matrix in Gavel's format
//! (docs/heterogeneity.md): one per type measured at 1 GPU on the reference model, its
//! contention fitted to how the type's measured throughput on that model grows from 1 to 2, 4
//! and 8 GPUs, so on the reference model the template's curve and the matrix agree.

use schedlab_env::jobs::Template;
use schedlab_env::jobs::throughputs::{COUNTS, Throughputs};

use super::template_fit::{Run, fit};

/// One template per job type of `matrix` measured at 1 GPU on `reference`, in the matrix's
/// order, named `gavel-` and the type's words. `source` names the matrix in `fitted_from`.
pub fn templates(matrix: &Throughputs, reference: &str, source: &str) -> Vec<Template> {
    matrix
        .job_types(reference)
        .into_iter()
        .filter_map(|job_type| {
            let measured: Vec<(u32, f64)> = COUNTS
                .iter()
                .filter_map(|&n| matrix.alone(reference, false, job_type, n).map(|t| (n, t)))
                .collect();
            let one = measured.iter().find(|(n, _)| *n == 1)?.1;
            Some(template(job_type, one, &measured, reference, source))
        })
        .collect()
}

fn template(
    job_type: &str,
    one: f64,
    measured: &[(u32, f64)],
    reference: &str,
    source: &str,
) -> Template {
    // a step of the type takes 1 / throughput; the fit sees times at size 1 only
    let runs: Vec<Run> = measured
        .iter()
        .map(|&(n, throughput)| Run {
            workers: n as usize,
            size: 1.0,
            time_s: one / throughput,
            reached: true,
            utilisation: [1.0; 3],
        })
        .collect();
    let counts: Vec<String> = measured.iter().map(|(n, _)| n.to_string()).collect();
    let (contention, fitted_from) = if runs.len() >= 2 {
        let (sigma, _, _, rmse) = fit(&runs.iter().collect::<Vec<_>>());
        (
            sigma,
            format!(
                "{source}: {job_type} on {reference} at {} GPUs; ln-time RMSE {rmse:.3}",
                counts.join(", ")
            ),
        )
    } else {
        (
            0.0,
            format!(
                "{source}: {job_type} measured on {reference} at 1 GPU only: no scaling measured, contention 0 (linear) assumed"
            ),
        )
    };
    let fitted_from =
        format!("{fitted_from}; size_exponent 1 and utilisation 1 assumed (not measured)");
    Template {
        name: name_of(job_type),
        contention,
        // the matrix measures no container sizes: a size step scales as a count step does
        size_exponent: 1.0,
        // unmeasured: every allocated resource taken as used
        utilisation: [1.0; 3],
        fitted_from,
        workload: String::new(),
        time_at_one_s: 0.0,
        job_type: Some(job_type.to_owned()),
    }
}

/// `gavel-` and the type's words, lower case, joined by `-`: "ResNet-50 (batch size 64)" is
/// `gavel-resnet-50-batch-size-64`.
fn name_of(job_type: &str) -> String {
    let words: Vec<String> = job_type
        .split(|c: char| !c.is_ascii_alphanumeric())
        .filter(|w| !w.is_empty())
        .map(str::to_ascii_lowercase)
        .collect();
    format!("gavel-{}", words.join("-"))
}

#[cfg(test)]
mod tests {
    use std::path::Path;

    use schedlab_env::jobs::speedup;

    use super::*;

    fn shipped() -> Throughputs {
        Throughputs::read(
            &Path::new(env!("CARGO_MANIFEST_DIR"))
                .join("../data/throughputs/gavel/simulation_throughputs.json"),
        )
        .unwrap()
    }

    /// Every type measured at 1 GPU on the V100 gets one template; a type measured at 1, 2, 4
    /// and 8 GPUs gets a contention whose curve follows its measured speed-ups, a type measured
    /// at 1 GPU only contention 0 and says so.
    #[test]
    fn each_type_gets_a_template_whose_curve_follows_its_measured_scaling() {
        let matrix = shipped();
        let templates = templates(&matrix, "v100", "gavel.json");
        assert_eq!(templates.len(), matrix.job_types("v100").len());
        let resnet = templates
            .iter()
            .find(|t| t.name == "gavel-resnet-50-batch-size-64")
            .unwrap();
        assert_eq!(
            resnet.job_type.as_deref(),
            Some("ResNet-50 (batch size 64)")
        );
        let tput = |n| {
            matrix
                .alone("v100", false, "ResNet-50 (batch size 64)", n)
                .unwrap()
        };
        // within the fit's error of every measured speed-up, and better than no contention
        let error = |c: f64| -> f64 {
            [2, 4, 8]
                .iter()
                .map(|&n| {
                    (speedup(c, 1.0, n as f64, 1.0) / (tput(n) / tput(1)))
                        .ln()
                        .powi(2)
                })
                .sum()
        };
        assert!(resnet.contention > 0.0 && error(resnet.contention) < error(0.0));
        let a3c = templates.iter().find(|t| t.name == "gavel-a3c").unwrap();
        assert_eq!(a3c.contention, 0.0);
        assert!(
            a3c.fitted_from.contains("1 GPU only"),
            "{}",
            a3c.fitted_from
        );
    }
}
