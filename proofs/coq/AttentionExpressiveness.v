(** * Attention expressiveness: copying, averaging, a noisy key, two heads
      (attention-expressiveness-v1) *)
(** The exact-arithmetic core of contracts/attention-expressiveness-v1.yaml, stated on the scores
    s_i = ⟨k_i, q⟩. Softmax does not depend on the order of the keys, so the key a statement is
    about is the last one: index m of S m keys (m and S m of S (S m) when there are two). The
    rounding of the kernel, the geometry of the least query lengths (Cauchy–Schwarz, the convexity
    argument of EXPR-BND-004) and the tests' exact constructions are in
    proofs/attention_expressiveness.tex. *)
From Coq Require Import Reals Lia Lra Psatz.
From Attncheck Require Import Sums SoftmaxKernel.
Open Scope R_scope.

(** The last key's weight through the score gaps: 1/α_m = 1 + Σ_{i<m} e^{s_i − s_m}. *)
Lemma softmax_last m s :
  softmax (S m) s m = / (1 + sum m (fun i => exp (s i - s m))).
Proof.
  unfold softmax, partition. simpl sum.
  rewrite (sum_ext m (fun i => exp (s i - s m)) (fun i => exp (s i) * / exp (s m)))
    by (intros; unfold Rminus; rewrite exp_plus, exp_Ropp; reflexivity).
  rewrite sum_scal_r.
  pose proof (exp_pos (s m)) as He.
  assert (0 <= sum m (fun j => exp (s j))) by (apply sum_nonneg; intros; left; apply exp_pos).
  field. split; lra.
Qed.

Lemma gaps_nonneg m f : 0 <= sum m (fun i => exp (f i)).
Proof. apply sum_nonneg. intros. left. apply exp_pos. Qed.

(** e^{−ln(n/ε)} = ε/n. *)
Lemma exp_neg_ln_ratio n eps : 0 < n -> 0 < eps -> exp (- ln (n / eps)) = eps / n.
Proof.
  intros Hn He. rewrite exp_Ropp, exp_ln by (apply Rdiv_lt_0_compat; lra). field. lra.
Qed.

Lemma INR_S_pos m : 0 < INR (S m).
Proof. apply lt_0_INR. lia. Qed.

(** A unit key at distance >= 1 from a unit k_1 has ⟨k_1, k_i⟩ <= 1/2:
    ‖k_1 − k_i‖² = 2 − 2⟨k_1, k_i⟩. *)
Lemma unit_far_ip_le_half c : 1 <= 2 - 2 * c -> c <= 1 / 2.
Proof. lra. Qed.

(** EXPR-BND-001 (exact core): with s_m = t, s_i = t·c_i and 2 − 2c_i >= 1 (unit keys at distance
    >= 1 from the target), α_m >= 1/(1 + m e^{−t/2}). *)
Lemma copy_weight m s c t :
  0 <= t -> s m = t -> (forall i, (i < m)%nat -> s i = t * c i /\ 1 <= 2 - 2 * c i) ->
  / (1 + INR m * exp (- (t / 2))) <= softmax (S m) s m.
Proof.
  intros Ht Hm Hi. rewrite softmax_last.
  apply Rinv_le_contravar; [pose proof (gaps_nonneg m (fun i => s i - s m)); lra|].
  rewrite <- sum_const. apply Rplus_le_compat_l. apply sum_le. intros i Hil.
  destruct (Hi i Hil) as [Hs Hc]. apply unit_far_ip_le_half in Hc.
  assert (Hle : s i - s m <= - (t / 2)) by (rewrite Hs, Hm; nra).
  destruct Hle as [Hlt|Heq]; [left; apply exp_increasing, Hlt | rewrite Heq; right; reflexivity].
Qed.

(** EXPR-BND-001: with t = 2 ln(n/ε), n = m + 1 keys, α_m >= 1/(1 + mε/n) > 1/(1 + ε). *)
Theorem copy_distinct_value m s c eps :
  (0 < m)%nat -> 0 < eps < 1 ->
  let t := 2 * ln (INR (S m) / eps) in
  s m = t -> (forall i, (i < m)%nat -> s i = t * c i /\ 1 <= 2 - 2 * c i) ->
  / (1 + INR m * eps / INR (S m)) <= softmax (S m) s m /\ / (1 + eps) < softmax (S m) s m.
Proof.
  intros Hm [He0 He1] t Hs Hi.
  pose proof (INR_S_pos m) as Hn.
  assert (Hmr : 0 < INR m) by (apply lt_0_INR; exact Hm).
  assert (Hgt : 1 < INR (S m) / eps).
  { rewrite S_INR. apply (Rmult_lt_reg_r eps); [lra|]. unfold Rdiv. rewrite Rmult_assoc, Rinv_l by lra. nra. }
  assert (Ht : 0 <= t).
  { unfold t. left. apply Rmult_lt_0_compat; [lra|]. rewrite <- ln_1. apply ln_increasing; lra. }
  pose proof (copy_weight m s c t Ht Hs Hi) as H.
  replace (- (t / 2)) with (- ln (INR (S m) / eps)) in H by (unfold t; field).
  rewrite exp_neg_ln_ratio in H by lra.
  replace (INR m * (eps / INR (S m))) with (INR m * eps / INR (S m)) in H by (field; lra).
  split; [exact H|].
  eapply Rlt_le_trans; [|exact H].
  apply Rinv_lt_contravar.
  - apply Rmult_lt_0_compat; [apply Rplus_lt_le_0_compat; [lra|] |lra].
    apply Rmult_le_pos; [apply Rmult_le_pos; lra| left; apply Rinv_0_lt_compat; lra].
  - apply Rplus_lt_compat_l. rewrite S_INR. apply (Rmult_lt_reg_r (INR m + 1)); [lra|].
    unfold Rdiv. rewrite Rmult_assoc, Rinv_l by lra. nra.
Qed.

(** EXPR-BND-002 (exact core): distractors in antipodal pairs about the target, s_{2p} − s_m = −a + x_p
    and s_{2p+1} − s_m = −a − x_p (a = ⟨q, k_1⟩/2): if α_m >= 1/(1+ε) then a >= ln((n−1)/ε). With
    a <= ‖q‖/2 (Cauchy–Schwarz, in the LaTeX proof) no copying query is shorter than 2ln((n−1)/ε). *)
Lemma sum_pairs m f : sum (2 * m) f = sum m (fun p => f (2 * p)%nat + f (2 * p + 1)%nat).
Proof.
  induction m as [|m IH]; [reflexivity|].
  replace (2 * S m)%nat with (S (S (2 * m))) by lia.
  change (sum (S (S (2 * m))) f) with (sum (2 * m) f + f (2 * m)%nat + f (S (2 * m))).
  change (sum (S m) (fun p => f (2 * p)%nat + f (2 * p + 1)%nat))
    with (sum m (fun p => f (2 * p)%nat + f (2 * p + 1)%nat) + (f (2 * m)%nat + f (2 * m + 1)%nat)).
  rewrite IH. replace (S (2 * m)) with (2 * m + 1)%nat by lia. ring.
Qed.

Lemma cosh_ge_1 x : 2 <= exp x + exp (- x).
Proof.
  pose proof (exp_pos x) as H. rewrite exp_Ropp.
  assert (exp x + / exp x - 2 = (exp x - 1) ^ 2 / exp x) by (field; lra).
  assert (0 <= (exp x - 1) ^ 2 / exp x) by (unfold Rdiv; apply Rle_mult_inv_pos; [apply pow2_ge_0|lra]). lra.
Qed.

Theorem copy_least_length m s a x eps :
  (0 < m)%nat -> 0 < eps ->
  (forall p, (p < m)%nat ->
     s (2 * p)%nat - s (2 * m)%nat = - a + x p /\ s (2 * p + 1)%nat - s (2 * m)%nat = - a - x p) ->
  / (1 + eps) <= softmax (S (2 * m)) s (2 * m) ->
  ln (INR (2 * m) / eps) <= a.
Proof.
  intros Hm He Hp Hw. rewrite softmax_last in Hw.
  assert (Hsum : INR (2 * m) * exp (- a) <= sum (2 * m) (fun i => exp (s i - s (2 * m)%nat))).
  { rewrite sum_pairs.
    replace (INR (2 * m) * exp (- a)) with (sum m (fun _ => 2 * exp (- a)))
      by (rewrite sum_const, mult_INR; simpl INR; ring).
    apply sum_le. intros p Hpl.
    destruct (Hp p Hpl) as [E1 E2]. rewrite E1, E2.
    unfold Rminus. rewrite !exp_plus.
    pose proof (cosh_ge_1 (x p)) as C. pose proof (exp_pos (- a)). nra. }
  pose proof (gaps_nonneg (2 * m) (fun i => s i - s (2 * m)%nat)) as G.
  assert (Hle : sum (2 * m) (fun i => exp (s i - s (2 * m)%nat)) <= eps).
  { apply Rinv_le_contravar in Hw; [|apply Rinv_0_lt_compat; lra].
    rewrite !Rinv_inv in Hw. lra. }
  assert (Hpos : 0 < INR (2 * m)) by (apply lt_0_INR; lia).
  assert (Hexp : exp (- a) <= eps / INR (2 * m)).
  { apply (Rmult_le_reg_l (INR (2 * m))); [exact Hpos|]. unfold Rdiv.
    rewrite <- Rmult_assoc, (Rmult_comm (INR (2 * m)) eps), Rmult_assoc, Rinv_r by lra. lra. }
  apply Ropp_le_cancel. rewrite <- (ln_exp (- a)).
  replace (- ln (INR (2 * m) / eps)) with (ln (eps / INR (2 * m))).
  - destruct Hexp as [Hlt|Heq]; [left; apply ln_increasing; [apply exp_pos|exact Hlt] | rewrite Heq; right; reflexivity].
  - rewrite <- ln_Rinv by (apply Rdiv_lt_0_compat; lra). f_equal. field. lra.
Qed.

(** EXPR-BND-003 (exact core): orthonormal keys, q = t(k_1 + k_2): the two targets (m and S m of
    S (S m) keys) score t, the other m score 0, and each target weighs 1/(2 + m e^{−t}). *)
Lemma average_weight m s t :
  s m = t -> s (S m) = t -> (forall i, (i < m)%nat -> s i = 0) ->
  softmax (S (S m)) s (S m) = / (2 + INR m * exp (- t)) /\ softmax (S (S m)) s m = softmax (S (S m)) s (S m).
Proof.
  intros H1 H2 H0. split.
  - rewrite softmax_last. simpl sum. rewrite H1, H2, Rminus_eq_0, exp_0.
    rewrite (sum_ext m _ (fun _ => exp (- t))) by (intros i Hi; rewrite H0 by exact Hi; f_equal; ring).
    rewrite sum_const. f_equal. ring.
  - apply softmax_eq_iff; [lia|]. rewrite H1, H2. reflexivity.
Qed.

(** EXPR-BND-003: at t = ln(n/ε), n = m + 2 keys: α_1 = α_2 = 1/(2 + mε/n) >= 1/(2 + ε). *)
Theorem average_two_values m s eps :
  0 < eps ->
  let t := ln (INR (S (S m)) / eps) in
  s m = t -> s (S m) = t -> (forall i, (i < m)%nat -> s i = 0) ->
  / (2 + eps) <= softmax (S (S m)) s (S m) /\ / (2 + eps) <= softmax (S (S m)) s m.
Proof.
  intros He t H1 H2 H0. destruct (average_weight m s t H1 H2 H0) as [W E]. rewrite E, W.
  unfold t. rewrite exp_neg_ln_ratio by (try apply INR_S_pos; lra).
  assert (Hm : 0 <= INR m) by apply pos_INR. pose proof (INR_S_pos (S m)) as Hn.
  assert (INR m * (eps / INR (S (S m))) <= eps).
  { rewrite !S_INR in *. apply (Rmult_le_reg_r (INR m + 1 + 1)); [lra|].
    unfold Rdiv. rewrite Rmult_assoc, Rmult_assoc, Rinv_l by lra. nra. }
  assert (0 <= INR m * (eps / INR (S (S m)))) by (apply Rmult_le_pos; [lra|]; unfold Rdiv; apply Rle_mult_inv_pos; lra).
  split; apply Rinv_le_contravar; lra.
Qed.

(** EXPR-EQV-001 (exact core): α_i/α_j = e^{s_i − s_j}; with s_1 = ct, s_2 = t: e^{(c−1)t}. *)
Theorem weight_ratio n s i j : (0 < n)%nat -> softmax n s i / softmax n s j = exp (s i - s j).
Proof.
  intros Hn. pose proof (partition_pos n s Hn). pose proof (exp_pos (s j)).
  unfold softmax. unfold Rminus. rewrite exp_plus, exp_Ropp. field. lra.
Qed.

Corollary noisy_key_ratio n s c t :
  (2 <= n)%nat -> s 0%nat = c * t -> s 1%nat = t -> softmax n s 0 / softmax n s 1 = exp ((c - 1) * t).
Proof.
  intros Hn H0 H1. rewrite weight_ratio by lia. rewrite H0, H1. f_equal. ring.
Qed.

(** EXPR-BND-005 (exact core), one head: the target scores at least L, every other key 0. Then
    1 − α_m <= m e^{−L}, and the output Σ α_i v_i is within (1 − α_m)·D of v_m when every
    |v_i − v_m| <= D (one output coordinate; the bound holds coordinate by coordinate). *)
Lemma head_miss m s L :
  L <= s m -> (forall i, (i < m)%nat -> s i = 0) -> 1 - softmax (S m) s m <= INR m * exp (- L).
Proof.
  intros HL H0. rewrite softmax_last.
  rewrite (sum_ext m _ (fun _ => exp (- s m))) by (intros i Hi; rewrite H0 by exact Hi; f_equal; ring).
  rewrite sum_const. pose proof (pos_INR m). pose proof (exp_pos (- s m)).
  assert (exp (- s m) <= exp (- L)) by (destruct HL as [Hlt|Heq]; [left; apply exp_increasing; lra | rewrite Heq; lra]).
  assert (1 - / (1 + INR m * exp (- s m)) = INR m * exp (- s m) / (1 + INR m * exp (- s m))) by (field; nra).
  assert (INR m * exp (- s m) / (1 + INR m * exp (- s m)) <= INR m * exp (- s m)).
  { apply (Rmult_le_reg_r (1 + INR m * exp (- s m))); [nra|]. unfold Rdiv. rewrite Rmult_assoc, Rinv_l by nra. nra. }
  nra.
Qed.

Lemma Rabs_sum_le n f : Rabs (sum n f) <= sum n (fun i => Rabs (f i)).
Proof.
  induction n as [|n IH]; simpl; [rewrite Rabs_R0; lra|].
  eapply Rle_trans; [apply Rabs_triang|]. lra.
Qed.

Lemma head_output_close m s v D :
  (forall i, (i < m)%nat -> Rabs (v i - v m) <= D) ->
  Rabs (sum (S m) (fun i => softmax (S m) s i * v i) - v m) <= (1 - softmax (S m) s m) * D.
Proof.
  intros Hv. pose proof (softmax_sum_1 (S m) s ltac:(lia)) as H1. simpl sum in H1 |- *.
  assert (E : sum m (fun i => softmax (S m) s i * v i) + softmax (S m) s m * v m - v m
              = sum m (fun i => softmax (S m) s i * (v i - v m))).
  { rewrite (sum_ext m (fun i => softmax (S m) s i * (v i - v m))
                        (fun i => softmax (S m) s i * v i - softmax (S m) s i * v m)) by (intros; ring).
    rewrite sum_minus, sum_scal_r. replace (sum m (softmax (S m) s)) with (1 - softmax (S m) s m) by lra. ring. }
  rewrite E. eapply Rle_trans; [apply Rabs_sum_le|].
  replace (1 - softmax (S m) s m) with (sum m (softmax (S m) s)) by lra. rewrite <- sum_scal_r.
  apply sum_le. intros i Hi. rewrite Rabs_mult, Rabs_right by (left; apply softmax_pos; lia).
  apply Rmult_le_compat_l; [left; apply softmax_pos; lia | apply Hv, Hi].
Qed.

(** EXPR-BND-005: head 1 scores c·2ln(n/ε) >= ln(n/ε) for c >= 1/2, head 2 scores ln(n/ε); each
    misses at most mε/n (n = m + 1), and the average of the two outputs is within mε/n·D of the
    average of the two values. *)
Theorem two_heads_average m s1 s2 c eps O1 O2 v1 v2 D :
  0 < eps -> 1 / 2 <= c -> 0 <= D ->
  let L := ln (INR (S m) / eps) in
  0 <= L -> s1 m = c * (2 * L) -> s2 m = L ->
  (forall i, (i < m)%nat -> s1 i = 0 /\ s2 i = 0) ->
  Rabs (O1 - v1) <= (1 - softmax (S m) s1 m) * D -> Rabs (O2 - v2) <= (1 - softmax (S m) s2 m) * D ->
  Rabs ((O1 + O2) / 2 - (v1 + v2) / 2) <= INR m * eps / INR (S m) * D.
Proof.
  intros He Hc HD L HL H1 H2 H0 Ho1 Ho2.
  assert (Hmiss : forall s, L <= s m -> (forall i, (i < m)%nat -> s i = 0) -> 1 - softmax (S m) s m <= INR m * eps / INR (S m)).
  { intros s Hs Hz. eapply Rle_trans; [apply (head_miss m s L Hs Hz)|].
    unfold L. rewrite exp_neg_ln_ratio by (try apply INR_S_pos; lra). right. field. apply Rgt_not_eq, INR_S_pos. }
  assert (A1 : 1 - softmax (S m) s1 m <= INR m * eps / INR (S m)) by (apply Hmiss; [rewrite H1; nra | intros; apply H0; assumption]).
  assert (A2 : 1 - softmax (S m) s2 m <= INR m * eps / INR (S m)) by (apply Hmiss; [lra | intros; apply H0; assumption]).
  replace ((O1 + O2) / 2 - (v1 + v2) / 2) with ((O1 - v1) / 2 + (O2 - v2) / 2) by field.
  eapply Rle_trans; [apply Rabs_triang|]. unfold Rdiv. rewrite !Rabs_mult, (Rabs_right (/ 2)) by lra.
  assert (Rabs (O1 - v1) <= INR m * eps * / INR (S m) * D) by (eapply Rle_trans; [exact Ho1|]; apply Rmult_le_compat_r; [exact HD|exact A1]).
  assert (Rabs (O2 - v2) <= INR m * eps * / INR (S m) * D) by (eapply Rle_trans; [exact Ho2|]; apply Rmult_le_compat_r; [exact HD|exact A2]).
  lra.
Qed.

(** EXPR-EQV-002: the exercise's head 1 (q_1 = ln(n/ε)u) at c = 1/2 scores L/2 on the noisy key and 0
    elsewhere: α = r/(r + m) with r = e^{L/2}, r² = n/ε; it is below 1/2 iff r < m iff n/ε < m². *)
Theorem seed_head_one m s eps :
  (0 < m)%nat -> 0 < eps ->
  let L := ln (INR (S m) / eps) in
  s m = L / 2 -> (forall i, (i < m)%nat -> s i = 0) ->
  softmax (S m) s m = exp (L / 2) / (exp (L / 2) + INR m) /\ exp (L / 2) ^ 2 = INR (S m) / eps /\
  (softmax (S m) s m < 1 / 2 <-> INR (S m) / eps < INR m ^ 2).
Proof.
  intros Hm He L Hs H0.
  pose proof (INR_S_pos m) as Hn. assert (Hmr : 0 < INR m) by (apply lt_0_INR; exact Hm).
  pose proof (exp_pos (L / 2)) as Hr.
  assert (Hsq : exp (L / 2) ^ 2 = INR (S m) / eps).
  { replace (exp (L / 2) ^ 2) with (exp (L / 2 + L / 2)) by (rewrite exp_plus; ring).
    replace (L / 2 + L / 2) with L by field.
    unfold L. apply exp_ln, Rdiv_lt_0_compat; lra. }
  assert (Hw : softmax (S m) s m = exp (L / 2) / (exp (L / 2) + INR m)).
  { rewrite softmax_last.
    rewrite (sum_ext m _ (fun _ => / exp (L / 2))) by (intros i Hi; rewrite H0, Hs by exact Hi; rewrite <- exp_Ropp; f_equal; ring).
    rewrite sum_const. field. split; lra. }
  split; [exact Hw|]. split; [exact Hsq|]. rewrite Hw, <- Hsq.
  set (r := exp (L / 2)) in *.
  set (w := (r - INR m) / (2 * (r + INR m))).
  assert (E : r / (r + INR m) = 1 / 2 + w) by (unfold w; field; lra).
  assert (Ew : w * (2 * (r + INR m)) = r - INR m) by (unfold w; field; lra).
  rewrite E. split; intros H.
  - assert (w < 0) by lra. assert (r - INR m < 0) by nra. nra.
  - assert (r < INR m) by nra. assert (w * (2 * (r + INR m)) < 0) by lra. nra.
Qed.
