(** * QK-norm: RMSNorm with unit gain and its output norm (qk-norm-v1) *)
(** Exact arithmetic. The kernel's rounding (QKN-BND-002) and the floating-point forms of the
    obligations are in proofs/qk_norm.tex. *)
From Coq Require Import Reals Lia Lra Psatz.
From Attncheck Require Import Sums SoftmaxLipschitz.
Open Scope R_scope.

(** RMSNorm with unit gain: x / √(ms(x) + ε), ms(x) = ‖x‖²/d. *)
Definition ms (d : nat) (x : nat -> R) : R := norm2 d x / INR d.
Definition rmsnorm (d : nat) (eps : R) (x : nat -> R) (i : nat) : R := x i / sqrt (ms d x + eps).

Lemma div_sqrt_mul a b s : 0 < s -> a / sqrt s * (b / sqrt s) = a * b / s.
Proof.
  intros Hs. pose proof (sqrt_lt_R0 s Hs). pose proof (sqrt_sqrt s (Rlt_le _ _ Hs)) as H2.
  replace (a / sqrt s * (b / sqrt s)) with (a * b / (sqrt s * sqrt s)) by (field; lra).
  rewrite H2. reflexivity.
Qed.

(** QKN-INV-001 (exact core): ‖RMSNorm(x)‖² = d·ms/(ms + ε), so RMS² = ms/(ms + ε), not 1. *)
Theorem rmsnorm_norm2 d eps x :
  (1 <= d)%nat -> 0 < ms d x + eps -> norm2 d (rmsnorm d eps x) = INR d * ms d x / (ms d x + eps).
Proof.
  intros Hd Hpos. unfold norm2, dot, rmsnorm.
  rewrite (sum_ext d _ (fun i => x i * x i / (ms d x + eps)))
    by (intros; apply div_sqrt_mul; exact Hpos).
  rewrite sum_div.
  assert (0 < INR d) by (apply lt_0_INR; lia).
  assert (Hm : INR d * ms d x = sum d (fun i => x i * x i)) by (unfold ms, norm2, dot; field; lra).
  rewrite Hm. reflexivity.
Qed.

Lemma rmsnorm_norm2_le d eps x :
  (1 <= d)%nat -> 0 <= eps -> 0 < ms d x + eps -> norm2 d (rmsnorm d eps x) <= INR d.
Proof.
  intros Hd He Hpos. rewrite rmsnorm_norm2 by assumption.
  assert (0 < INR d) by (apply lt_0_INR; lia).
  assert (0 <= ms d x) by (unfold ms; apply Rmult_le_pos; [apply norm2_nonneg | left; apply Rinv_0_lt_compat; lra]).
  apply (Rmult_le_reg_r (ms d x + eps)); [exact Hpos|].
  unfold Rdiv. rewrite Rmult_assoc, Rinv_l, Rmult_1_r by lra. nra.
Qed.


(** QKN-BND-001 (exact core, unit gain): |y_i| ≤ √d, and |y_i| ≤ |x_i|/√ε for ε > 0. With a gain
    w the output is w_i·y_i, so both bounds scale by |w_i|. *)
Theorem rmsnorm_amplitude d eps x i :
  (1 <= d)%nat -> (i < d)%nat -> 0 <= eps -> 0 < ms d x + eps ->
  Rabs (rmsnorm d eps x i) <= sqrt (INR d)
  /\ (0 < eps -> Rabs (rmsnorm d eps x i) <= Rabs (x i) / sqrt eps).
Proof.
  intros Hd Hi He Hpos. split.
  - assert (Hy : rmsnorm d eps x i * rmsnorm d eps x i <= INR d).
    { apply (Rle_trans _ (norm2 d (rmsnorm d eps x))); [|apply rmsnorm_norm2_le; assumption].
      apply (term_le_sum d (fun j => rmsnorm d eps x j * rmsnorm d eps x j)); [intros; nra | exact Hi]. }
    assert (0 <= INR d) by (apply pos_INR).
    rewrite <- (sqrt_Rsqr_abs (rmsnorm d eps x i)). apply sqrt_le_1_alt.
    unfold Rsqr. exact Hy.
  - intros Hep. unfold rmsnorm, Rdiv. rewrite Rabs_mult, Rabs_inv.
    rewrite (Rabs_right (sqrt (ms d x + eps))) by (left; apply sqrt_lt_R0; exact Hpos).
    assert (0 <= ms d x) by (unfold ms; apply Rmult_le_pos; [apply norm2_nonneg | left; apply Rinv_0_lt_compat, lt_0_INR; lia]).
    unfold Rdiv. apply Rmult_le_compat_l; [apply Rabs_pos|].
    apply Rinv_le_contravar; [apply sqrt_lt_R0; exact Hep | apply sqrt_le_1_alt; lra].
Qed.
