//! Feature matrices, dense or sparse (CSR), and the row operations the models' inner loops
//! run on them.

/// Row-major features. Sparse rows are CSR with sorted, 0-based column indices.
#[derive(Debug, Clone, PartialEq)]
pub enum Features {
    Dense {
        cols: usize,
        values: Vec<f32>,
    },
    Sparse {
        cols: usize,
        indptr: Vec<usize>,
        indices: Vec<u32>,
        values: Vec<f32>,
    },
}

/// One row, borrowed.
#[derive(Debug, Clone, Copy)]
pub enum Row<'a> {
    Dense(&'a [f32]),
    Sparse(&'a [u32], &'a [f32]),
}

impl Row<'_> {
    /// `w · x` for a weight slice as long as the row's width.
    #[inline]
    pub fn dot(&self, w: &[f32]) -> f32 {
        match *self {
            Row::Dense(x) => dense_dot(x, w),
            Row::Sparse(idx, val) => sparse_dot(idx, val, w),
        }
    }

    /// `|x|^2`.
    #[inline]
    pub fn squared_norm(&self) -> f32 {
        match *self {
            Row::Dense(values) | Row::Sparse(_, values) => dense_dot(values, values),
        }
    }

    /// `out += a * x`.
    #[inline]
    pub fn add_scaled_to(&self, a: f32, out: &mut [f32]) {
        match *self {
            Row::Dense(x) => out.iter_mut().zip(x).for_each(|(o, v)| *o += a * v),
            Row::Sparse(idx, val) => {
                for (&j, v) in idx.iter().zip(val) {
                    out[j as usize] += a * v;
                }
            }
        }
    }

    /// Writes the row densely into `out` (length = columns).
    pub fn write_dense(&self, out: &mut [f32]) {
        match *self {
            Row::Dense(x) => out.copy_from_slice(x),
            Row::Sparse(idx, val) => {
                out.fill(0.0);
                for (&j, v) in idx.iter().zip(val) {
                    out[j as usize] = *v;
                }
            }
        }
    }
}

/// Sparse dot product with four independent partial sums (one sequential chain of adds
/// would wait on every one).
#[inline(always)]
fn sparse_dot(idx: &[u32], val: &[f32], w: &[f32]) -> f32 {
    let (ic, vc) = (idx.chunks_exact(4), val.chunks_exact(4));
    let tail: f32 = ic
        .remainder()
        .iter()
        .zip(vc.remainder())
        .map(|(&j, v)| w[j as usize] * v)
        .sum();
    let mut acc = [0.0f32; 4];
    for (i, v) in ic.zip(vc) {
        for k in 0..4 {
            acc[k] += w[i[k] as usize] * v[k];
        }
    }
    (acc[0] + acc[1]) + (acc[2] + acc[3]) + tail
}

/// Dot product with eight independent partial sums: a plain `sum()` is one sequential
/// floating-point chain that the compiler may not vectorise.
#[inline]
fn dense_dot(x: &[f32], w: &[f32]) -> f32 {
    let w = &w[..x.len()];
    let (xc, wc) = (x.chunks_exact(8), w.chunks_exact(8));
    let tail: f32 = xc
        .remainder()
        .iter()
        .zip(wc.remainder())
        .map(|(a, b)| a * b)
        .sum();
    let mut acc = [0.0f32; 8];
    for (a, b) in xc.zip(wc) {
        for k in 0..8 {
            acc[k] += a[k] * b[k];
        }
    }
    acc.iter().sum::<f32>() + tail
}

impl Features {
    pub fn rows(&self) -> usize {
        match self {
            Features::Dense { cols, values } => values.len().checked_div(*cols).unwrap_or(0),
            Features::Sparse { indptr, .. } => indptr.len() - 1,
        }
    }

    pub fn cols(&self) -> usize {
        match self {
            Features::Dense { cols, .. } | Features::Sparse { cols, .. } => *cols,
        }
    }

    pub fn is_sparse(&self) -> bool {
        matches!(self, Features::Sparse { .. })
    }

    #[inline(always)]
    pub fn row(&self, i: usize) -> Row<'_> {
        match self {
            Features::Dense { cols, values } => Row::Dense(&values[i * cols..(i + 1) * cols]),
            Features::Sparse {
                indptr,
                indices,
                values,
                ..
            } => {
                let (a, b) = (indptr[i], indptr[i + 1]);
                Row::Sparse(&indices[a..b], &values[a..b])
            }
        }
    }

    /// The rows `idx`, in that order.
    pub fn select(&self, idx: &[usize]) -> Features {
        match self {
            Features::Dense { cols, values } => Features::Dense {
                cols: *cols,
                values: idx
                    .iter()
                    .flat_map(|&i| &values[i * cols..(i + 1) * cols])
                    .copied()
                    .collect(),
            },
            Features::Sparse {
                cols,
                indptr,
                indices,
                values,
            } => {
                let mut out_ptr = Vec::with_capacity(idx.len() + 1);
                out_ptr.push(0);
                let (mut out_idx, mut out_val) = (Vec::new(), Vec::new());
                for &i in idx {
                    let (a, b) = (indptr[i], indptr[i + 1]);
                    out_idx.extend_from_slice(&indices[a..b]);
                    out_val.extend_from_slice(&values[a..b]);
                    out_ptr.push(out_idx.len());
                }
                Features::Sparse {
                    cols: *cols,
                    indptr: out_ptr,
                    indices: out_idx,
                    values: out_val,
                }
            }
        }
    }

    /// Stored values (all of them for dense, the non-zeros for sparse).
    pub fn stored_values(&self) -> usize {
        match self {
            Features::Dense { values, .. } | Features::Sparse { values, .. } => values.len(),
        }
    }
}
