(** * attncheck's machine-checked proofs: everything, and the axioms everything rests on *)
(** Not in _CoqProject: tools/build-coq.sh compiles it last, once. [all_theorems] bundles every theorem an obligation names (contracts/*.yaml, field coq:), and
    [Print Assumptions] lists every axiom any of them depends on (one traversal for all: it is
    the slow part of the build). tools/build-coq.sh fails if one is not among the standard
    axioms of Coq's real numbers and classical logic (the list is in
    tools/check-coq-assumptions.sh). *)
From Attncheck Require Export Sums SoftmaxKernel MaxSubtraction SoftmaxLipschitz QkNorm ScoresRounding
  AttentionScaling Equivariance.
From Attncheck Require Export AttentionExpressiveness.

Definition all_theorems :=
  (@SoftmaxKernel.softmax_pos,
   @SoftmaxKernel.softmax_le_1,
   @SoftmaxKernel.softmax_sum_1,
   @SoftmaxKernel.softmax_shift,
   @SoftmaxKernel.softmax_sub_max,
   @SoftmaxKernel.softmax_lt_iff,
   @SoftmaxKernel.softmax_eq_iff,
   @MaxSubtraction.round_sub_max_nonpos,
   @MaxSubtraction.round_sub_max_at_max,
   @MaxSubtraction.row_sub_max_nonpos,
   @MaxSubtraction.binary_sub_max_nonpos,
   @MaxSubtraction.binary_sub_max_at_max,
   @SoftmaxLipschitz.jvp_const_zero,
   @SoftmaxLipschitz.jvp_sum_zero,
   @SoftmaxLipschitz.jvp_quad_form_var,
   @SoftmaxLipschitz.var_nonneg,
   @SoftmaxLipschitz.var_le_half_norm2,
   @SoftmaxLipschitz.jvp_cauchy_schwarz,
   @SoftmaxLipschitz.jvp_norm_le_half,
   @SoftmaxLipschitz.softmax_line_derivative,
   @SoftmaxLipschitz.softmax_lipschitz_half,
   @SoftmaxLipschitz.jvp_linear,
   @SoftmaxLipschitz.two_point_attains_half,
   @SoftmaxLipschitz.uniform_jvp_norm,
   @ScoresRounding.dot_fl_error,
   @ScoresRounding.pow_sub_1_le_gamma,
   @ScoresRounding.scaled_score_error,
   @AttentionScaling.score_bound_unit,
   @QkNorm.rmsnorm_norm2,
   @QkNorm.rmsnorm_amplitude,
   @AttentionScaling.score_bound_rms,
   @AttentionScaling.score_bound_rms_attained,
   @AttentionScaling.score_bound_gains,
   @AttentionScaling.entropy_nonneg,
   @AttentionScaling.entropy_le_ln_n,
   @AttentionScaling.entropy_zero_iff_one_hot,
   @AttentionScaling.lse_gibbs,
   @AttentionScaling.mean_monotone,
   @AttentionScaling.entropy_antitone_beta,
   @AttentionScaling.scaling_never_lowers_entropy,
   @AttentionExpressiveness.copy_distinct_value,
   @AttentionExpressiveness.copy_least_length,
   @AttentionExpressiveness.average_two_values,
   @AttentionExpressiveness.noisy_key_ratio,
   @AttentionExpressiveness.two_heads_average,
   @AttentionExpressiveness.seed_head_one,
   @Equivariance.softmax_perm,
   @Equivariance.softmax_rows_cols_perm,
   @Equivariance.softmax_rows_perm,
   @Equivariance.attention_key_perm,
   @Equivariance.attention_query_perm,
   @Equivariance.self_attention_equivariant).

Print Assumptions all_theorems.
