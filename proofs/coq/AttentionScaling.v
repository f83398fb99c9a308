(** * Attention scaling: score bounds after QK-norm, entropy bounds, and entropy non-increasing
      in inverse temperature (attention-scaling-v1) *)
(** Exact arithmetic. The contracts compare the rounded kernels with these statements within
    derived allowances (proofs/attention_scaling.tex, proofs/qk_norm.tex). Coq's [ln] is 0 on
    non-positive numbers, so [p * ln p] is the convention 0·ln 0 = 0. *)
From Coq Require Import Reals Lia Lra Psatz.
From Attncheck Require Import Sums SoftmaxKernel SoftmaxLipschitz QkNorm.
Open Scope R_scope.

(** ** Score bounds (Cauchy–Schwarz) *)

Lemma abs_le_of_sq_le a b : 0 <= b -> a ^ 2 <= b ^ 2 -> Rabs a <= b.
Proof.
  intros Hb H. apply Rsqr_incr_0_var; [|exact Hb].
  rewrite <- Rsqr_abs. unfold Rsqr. simpl in H. lra.
Qed.

Lemma cauchy_schwarz_dot d u v : (dot d u v) ^ 2 <= norm2 d u * norm2 d v.
Proof. exact (cauchy_schwarz d u v). Qed.

Lemma sqrt_INR_pos d : (1 <= d)%nat -> 0 < sqrt (INR d).
Proof. intros Hd. apply sqrt_lt_R0. apply lt_0_INR. lia. Qed.

(** ASCL-BND-001 (a): with unit-norm q, k the scaled score is at most 1/√d. *)
Theorem score_bound_unit d q k :
  (1 <= d)%nat -> norm2 d q = 1 -> norm2 d k = 1 -> Rabs (dot d q k) / sqrt (INR d) <= 1 / sqrt (INR d).
Proof.
  intros Hd Hq Hk. pose proof (sqrt_INR_pos d Hd) as Hs.
  apply Rmult_le_compat_r; [left; apply Rinv_0_lt_compat, Hs|].
  apply abs_le_of_sq_le; [lra|].
  pose proof (cauchy_schwarz_dot d q k) as H.
  rewrite Hq, Hk in H. lra.
Qed.

(** ASCL-BND-001 (b): RMS-normalised q, k (unit gain, ε ≥ 0): |S| ≤ √d. *)
Theorem score_bound_rms d eps q k :
  (1 <= d)%nat -> 0 <= eps -> 0 < ms d q + eps -> 0 < ms d k + eps ->
  Rabs (dot d (rmsnorm d eps q) (rmsnorm d eps k)) / sqrt (INR d) <= sqrt (INR d).
Proof.
  intros Hd He Hq Hk. pose proof (sqrt_INR_pos d Hd) as Hs.
  assert (HD : 0 < INR d) by (apply lt_0_INR; lia).
  pose proof (rmsnorm_norm2_le d eps q Hd He Hq). pose proof (rmsnorm_norm2_le d eps k Hd He Hk).
  pose proof (norm2_nonneg d (rmsnorm d eps q)). pose proof (norm2_nonneg d (rmsnorm d eps k)).
  assert (Habs : Rabs (dot d (rmsnorm d eps q) (rmsnorm d eps k)) <= INR d).
  { apply abs_le_of_sq_le; [lra|].
    pose proof (cauchy_schwarz_dot d (rmsnorm d eps q) (rmsnorm d eps k)) as Hcs.
    apply (Rle_trans _ _ _ Hcs). simpl. rewrite Rmult_1_r. apply Rmult_le_compat; lra. }
  apply (Rmult_le_reg_r (sqrt (INR d))); [exact Hs|].
  unfold Rdiv. rewrite Rmult_assoc, Rinv_l, Rmult_1_r by lra.
  rewrite sqrt_sqrt by lra. exact Habs.
Qed.

(** ASCL-BND-001 (b), tightness: at ε = 0, q = k = c·1 (c ≠ 0) gives exactly √d. *)
Theorem score_bound_rms_attained d c :
  (1 <= d)%nat -> c <> 0 ->
  dot d (rmsnorm d 0 (fun _ => c)) (rmsnorm d 0 (fun _ => c)) / sqrt (INR d) = sqrt (INR d).
Proof.
  intros Hd Hc. pose proof (sqrt_INR_pos d Hd) as Hs.
  assert (HD : 0 < INR d) by (apply lt_0_INR; lia).
  assert (Hms : ms d (fun _ => c) = c * c).
  { unfold ms, norm2, dot. rewrite sum_const. field. lra. }
  assert (Hcc : 0 < c * c) by nra.
  unfold dot, rmsnorm. rewrite Hms, Rplus_0_r.
  rewrite (sum_ext d _ (fun _ => 1)).
  - rewrite sum_const, Rmult_1_r. rewrite <- (sqrt_sqrt (INR d)) at 1 by lra. field. lra.
  - intros i _. rewrite div_sqrt_mul by exact Hcc. field. lra.
Qed.

(** ASCL-BND-001 (c): with gains |γ_q,i| ≤ G_q, |γ_k,i| ≤ G_k: |S| ≤ √d·G_q·G_k. *)
Theorem score_bound_gains d eps q k gq gk Gq Gk :
  (1 <= d)%nat -> 0 <= eps -> 0 < ms d q + eps -> 0 < ms d k + eps ->
  (forall i, (i < d)%nat -> Rabs (gq i) <= Gq) -> (forall i, (i < d)%nat -> Rabs (gk i) <= Gk) ->
  Rabs (dot d (fun i => gq i * rmsnorm d eps q i) (fun i => gk i * rmsnorm d eps k i)) / sqrt (INR d)
  <= sqrt (INR d) * Gq * Gk.
Proof.
  intros Hd He Hq Hk HGq HGk. pose proof (sqrt_INR_pos d Hd) as Hs.
  assert (HD : 0 < INR d) by (apply lt_0_INR; lia).
  assert (HGq0 : 0 <= Gq) by (specialize (HGq O ltac:(lia)); pose proof (Rabs_pos (gq O)); lra).
  assert (HGk0 : 0 <= Gk) by (specialize (HGk O ltac:(lia)); pose proof (Rabs_pos (gk O)); lra).
  assert (Hgain : forall g G x, (forall i, (i < d)%nat -> Rabs (g i) <= G) ->
            norm2 d (fun i => g i * x i) <= G * G * norm2 d x).
  { intros g G x HG. unfold norm2, dot. rewrite <- sum_scal_l. apply sum_le. intros i Hi.
    specialize (HG i Hi). pose proof (Rabs_pos (g i)).
    assert (g i * g i <= G * G).
    { rewrite <- (Rabs_mult (g i) (g i)) at 1 || idtac. pose proof (Rsqr_abs (g i)). unfold Rsqr in *. nra. }
    pose proof (Rle_0_sqr (x i)). unfold Rsqr in *. nra. }
  pose proof (Hgain gq Gq (rmsnorm d eps q) HGq). pose proof (Hgain gk Gk (rmsnorm d eps k) HGk).
  pose proof (rmsnorm_norm2_le d eps q Hd He Hq). pose proof (rmsnorm_norm2_le d eps k Hd He Hk).
  pose proof (norm2_nonneg d (rmsnorm d eps q)). pose proof (norm2_nonneg d (rmsnorm d eps k)).
  pose proof (norm2_nonneg d (fun i => gq i * rmsnorm d eps q i)).
  pose proof (norm2_nonneg d (fun i => gk i * rmsnorm d eps k i)).
  assert (Habs : Rabs (dot d (fun i => gq i * rmsnorm d eps q i) (fun i => gk i * rmsnorm d eps k i))
                 <= INR d * Gq * Gk).
  { apply abs_le_of_sq_le; [apply Rmult_le_pos; [apply Rmult_le_pos|]; lra|].
    pose proof (cauchy_schwarz_dot d (fun i => gq i * rmsnorm d eps q i) (fun i => gk i * rmsnorm d eps k i)) as Hcs.
    apply (Rle_trans _ _ _ Hcs).
    replace ((INR d * Gq * Gk) ^ 2) with ((Gq * Gq * INR d) * (Gk * Gk * INR d)) by ring.
    apply Rmult_le_compat; try lra.
    - apply (Rle_trans _ (Gq * Gq * norm2 d (rmsnorm d eps q))); [lra|].
      apply Rmult_le_compat_l; [nra | lra].
    - apply (Rle_trans _ (Gk * Gk * norm2 d (rmsnorm d eps k))); [lra|].
      apply Rmult_le_compat_l; [nra | lra]. }
  apply (Rmult_le_reg_r (sqrt (INR d))); [exact Hs|].
  unfold Rdiv. rewrite Rmult_assoc, Rinv_l, Rmult_1_r by lra.
  replace (sqrt (INR d) * Gq * Gk * sqrt (INR d)) with (sqrt (INR d) * sqrt (INR d) * Gq * Gk) by ring.
  rewrite sqrt_sqrt by lra. exact Habs.
Qed.

(** ** Entropy bounds on the simplex *)

Definition entropy (n : nat) (p : nat -> R) : R := - sum n (fun i => p i * ln (p i)).

Lemma ln_le_compat x y : 0 < x -> x <= y -> ln x <= ln y.
Proof.
  intros Hx [Hlt|Heq]; [left; apply ln_increasing; assumption | rewrite Heq; lra].
Qed.

(** ln x ≤ x − 1 for x > 0 (from e^y ≥ 1 + y). *)
Lemma ln_le_sub_1 x : 0 < x -> ln x <= x - 1.
Proof.
  intros Hx. pose proof (exp_ineq1_le (ln x)) as H. rewrite exp_ln in H by exact Hx. lra.
Qed.

Lemma xlnx_nonpos x : 0 <= x <= 1 -> x * ln x <= 0.
Proof.
  intros [[Hx|Hx] H1].
  - pose proof (ln_le_compat x 1 Hx H1). rewrite ln_1 in H. nra.
  - subst x. lra.
Qed.

Lemma simplex_le_1 n p i : simplex n p -> (i < n)%nat -> p i <= 1.
Proof. intros [Hp Hs] Hi. rewrite <- Hs. apply term_le_sum; assumption. Qed.

(** ASCL-BND-002 (exact core): H(p) ≥ 0. *)
Theorem entropy_nonneg n p : simplex n p -> 0 <= entropy n p.
Proof.
  intros Hsp. unfold entropy. rewrite <- sum_opp. apply sum_nonneg. intros i Hi.
  pose proof (xlnx_nonpos (p i) (conj (proj1 Hsp i Hi) (simplex_le_1 n p i Hsp Hi))). lra.
Qed.

(** ASCL-BND-003 (exact core): H(p) ≤ ln n (Gibbs against the uniform distribution). *)
Theorem entropy_le_ln_n n p : (0 < n)%nat -> simplex n p -> entropy n p <= ln (INR n).
Proof.
  intros Hn [Hp Hs]. assert (HN : 0 < INR n) by (apply lt_0_INR; lia).
  assert (Hterm : forall i, (i < n)%nat -> - (p i * ln (p i)) - p i * ln (INR n) <= / INR n - p i).
  { intros i Hi. destruct (Hp i Hi) as [Hpos|Hz].
    - assert (Hq : 0 < / (INR n * p i)) by (apply Rinv_0_lt_compat; nra).
      pose proof (ln_le_sub_1 _ Hq) as Hl.
      rewrite ln_Rinv, ln_mult in Hl by nra.
      assert (p i * / (INR n * p i) = / INR n) by (field; lra).
      assert (p i * (- (ln (INR n) + ln (p i))) <= p i * (/ (INR n * p i) - 1))
        by (apply Rmult_le_compat_l; lra).
      nra.
    - rewrite <- Hz. rewrite !Rmult_0_l. pose proof (Rinv_0_lt_compat _ HN). lra. }
  pose proof (sum_le n _ _ Hterm) as H.
  rewrite sum_minus, sum_minus, sum_opp, sum_scal_r, Hs, sum_const in H.
  unfold entropy. replace (INR n * / INR n) with 1 in H by (field; lra). lra.
Qed.

(** One-hot: one coordinate is 1, all others 0. *)
Definition one_hot (n : nat) (p : nat -> R) : Prop :=
  exists k, (k < n)%nat /\ p k = 1 /\ forall j, (j < n)%nat -> j <> k -> p j = 0.

(** ASCL-BND-002 (exact core): on the simplex, H(p) = 0 iff p is one-hot. *)
Theorem entropy_zero_iff_one_hot n p : simplex n p -> (entropy n p = 0 <-> one_hot n p).
Proof.
  intros Hsp. pose proof Hsp as [Hp Hs]. split.
  - intros H0.
    assert (Hz : forall i, (i < n)%nat -> - (p i * ln (p i)) = 0).
    { apply sum_nonneg_eq_0.
      - intros i Hi. pose proof (xlnx_nonpos (p i) (conj (Hp i Hi) (simplex_le_1 n p i Hsp Hi))). lra.
      - rewrite sum_opp. unfold entropy in H0. lra. }
    assert (H01 : forall i, (i < n)%nat -> p i = 0 \/ p i = 1).
    { intros i Hi. specialize (Hz i Hi). destruct (Hp i Hi) as [Hpos|Hzero]; [|left; auto].
      right. assert (ln (p i) = 0) by (apply (Rmult_eq_reg_l (p i)); lra).
      apply ln_inv; [exact Hpos | lra |]. rewrite ln_1. assumption. }
    destruct n as [|n]; [simpl in Hs; lra|].
    destruct (argmax (S n) p ltac:(lia)) as [k [Hk Hmax]].
    exists k. split; [exact Hk|].
    assert (Hk1 : p k = 1).
    { destruct (H01 k Hk) as [H|H]; [|exact H]. exfalso.
      assert (sum (S n) p = 0).
      { rewrite <- (sum_zero (S n)). apply sum_ext. intros i Hi.
        specialize (Hmax i Hi). destruct (H01 i Hi) as [Hi0|Hi1]; lra. }
      lra. }
    split; [exact Hk1|]. intros j Hj Hjk.
    destruct (H01 j Hj) as [H|H]; [exact H|]. exfalso.
    pose proof (two_terms_le_sum (S n) p j k Hp Hj Hk Hjk). lra.
  - intros [k [Hk [Hk1 Hoth]]]. unfold entropy.
    rewrite (sum_ext n _ (fun _ => 0)); [rewrite sum_zero; lra|].
    intros i Hi. destruct (Nat.eq_dec i k) as [->|Hne].
    + rewrite Hk1, ln_1. ring.
    + rewrite (Hoth i Hi Hne). ring.
Qed.

(** ** Entropy is non-increasing in the inverse temperature (saturation) *)

Definition tempered (n : nat) (z : nat -> R) (beta : R) : nat -> R := softmax n (fun j => beta * z j).
Definition lse (n : nat) (z : nat -> R) (beta : R) : R := ln (partition n (fun j => beta * z j)).

Lemma tempered_simplex n z beta : (0 < n)%nat -> simplex n (tempered n z beta).
Proof. intros Hn. apply softmax_simplex, Hn. Qed.

(** e^y ≥ e^c (1 + y − c): the tangent of exp at c lies below it. *)
Lemma exp_above_tangent y c : exp c * (1 + (y - c)) <= exp y.
Proof.
  pose proof (exp_ineq1_le (y - c)). pose proof (exp_pos c).
  replace (exp y) with (exp c * exp (y - c)) by (rewrite <- exp_plus; f_equal; ring).
  apply Rmult_le_compat_l; lra.
Qed.

(** lse(α) ≥ lse(β) + (α − β)·⟨z⟩_{p_β}: the log-partition function lies above its tangents. *)
Theorem lse_gibbs n z alpha beta :
  (0 < n)%nat -> lse n z alpha >= lse n z beta + (alpha - beta) * mean n (tempered n z beta) z.
Proof.
  intros Hn. set (p := tempered n z beta). set (c := (alpha - beta) * mean n p z).
  set (Zb := partition n (fun j => beta * z j)).
  assert (HZb : 0 < Zb) by apply partition_pos, Hn.
  assert (HZa : partition n (fun j => alpha * z j) = Zb * sum n (fun j => p j * exp ((alpha - beta) * z j))).
  { unfold p, tempered, softmax, partition. fold (partition n (fun j => beta * z j)). fold Zb.
    rewrite <- sum_scal_l. apply sum_ext. intros j _.
    replace (alpha * z j) with (beta * z j + (alpha - beta) * z j) by ring. rewrite exp_plus.
    field. lra. }
  assert (Hjensen : exp c <= sum n (fun j => p j * exp ((alpha - beta) * z j))).
  { pose proof (tempered_simplex n z beta Hn) as [Hp Hs]. fold p in Hp, Hs.
    apply (Rle_trans _ (sum n (fun j => p j * (exp c * (1 + ((alpha - beta) * z j - c)))))).
    - rewrite (sum_ext n _ (fun j => exp c * (1 - c) * p j + exp c * (alpha - beta) * (p j * z j)))
        by (intros; ring).
      rewrite sum_plus, sum_scal_l, sum_scal_l, Hs. fold (mean n p z). unfold c. lra.
    - apply sum_le. intros j Hj. apply Rmult_le_compat_l; [apply Hp, Hj | apply exp_above_tangent]. }
  unfold lse. rewrite HZa. fold Zb.
  assert (Hpos : 0 < sum n (fun j => p j * exp ((alpha - beta) * z j)))
    by (apply (Rlt_le_trans _ (exp c)); [apply exp_pos | exact Hjensen]).
  rewrite ln_mult by assumption.
  pose proof (ln_le_compat _ _ (exp_pos c) Hjensen) as Hl. rewrite ln_exp in Hl.
  fold p. lra.
Qed.

(** The mean score ⟨z⟩_{p_β} is non-decreasing in β. *)
Theorem mean_monotone n z b1 b2 :
  (0 < n)%nat -> b1 <= b2 -> mean n (tempered n z b1) z <= mean n (tempered n z b2) z.
Proof.
  intros Hn Hb. pose proof (lse_gibbs n z b1 b2 Hn). pose proof (lse_gibbs n z b2 b1 Hn).
  destruct Hb as [Hlt|Heq]; [|subst; lra]. nra.
Qed.

(** H(p_β) = lse(β) − β⟨z⟩_{p_β}. *)
Lemma entropy_tempered n z beta :
  (0 < n)%nat -> entropy n (tempered n z beta) = lse n z beta - beta * mean n (tempered n z beta) z.
Proof.
  intros Hn. pose proof (tempered_simplex n z beta Hn) as [_ Hs].
  set (Z := partition n (fun j => beta * z j)). assert (HZ : 0 < Z) by apply partition_pos, Hn.
  unfold entropy, lse. fold Z.
  rewrite (sum_ext n _ (fun i => beta * (tempered n z beta i * z i) - ln Z * tempered n z beta i)).
  - rewrite sum_minus, sum_scal_l, sum_scal_l, Hs. unfold mean. ring.
  - intros i _. unfold tempered, softmax at 2. fold Z.
    unfold Rdiv. rewrite ln_mult, ln_Rinv, ln_exp by (try apply Rinv_0_lt_compat; try apply exp_pos; lra).
    ring.
Qed.

(** ASCL-MON-001: 0 ≤ β₁ ≤ β₂ ⇒ H(softmax(β₂z)) ≤ H(softmax(β₁z)). *)
Theorem entropy_antitone_beta n z b1 b2 :
  (0 < n)%nat -> 0 <= b1 -> b1 <= b2 -> entropy n (tempered n z b2) <= entropy n (tempered n z b1).
Proof.
  intros Hn H1 H12. rewrite !entropy_tempered by exact Hn.
  pose proof (lse_gibbs n z b1 b2 Hn). pose proof (mean_monotone n z b1 b2 Hn H12).
  nra.
Qed.

(** ASCL-MON-001, the 1/√d_k case: scaling scores by 1/√d_k (d_k ≥ 1) never lowers entropy. *)
Corollary scaling_never_lowers_entropy n s dk :
  (0 < n)%nat -> 1 <= dk ->
  entropy n (tempered n s 1) <= entropy n (tempered n s (/ sqrt dk)).
Proof.
  intros Hn Hdk. apply entropy_antitone_beta; [exact Hn | |].
  - left. apply Rinv_0_lt_compat, sqrt_lt_R0. lra.
  - rewrite <- Rinv_1. apply Rinv_le_contravar; [lra|].
    rewrite <- sqrt_1. apply sqrt_le_1_alt. exact Hdk.
Qed.
