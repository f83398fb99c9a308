(** * The rounding error of the scaled score q·k/c in binary floating point
      (attention-scaling-v1: ASCL-INV-002, the dot-product part of proofs/bounds/scores.md) *)
(** In any binary format with gradual underflow (Flocq's FLT: precision [prec], smallest
    exponent [emin]) and round to nearest with any tie rule: the recursive dot product
    acc_t = fl(acc_{t−1} + fl(q_t k_t)) is within ((1+u)^d − 1)·Σ|q_t k_t| + d·(η/2)·(1+u)^d of
    q·k (u = 2^−prec, η = 2^emin the subnormal spacing), and (1+u)^d − 1 ≤ γ_d = du/(1 − du);
    one more rounding divides by the scale c. While du < 1 the C++ form holds too:
    |acc_d − q·k| ≤ γ_d·Σ|q_t k_t| + d·η ([dot_fl_error_gamma], issue 47), the one
    [bounds::softmax_jvp_bound] and [bounds::attention_output_bound] evaluate. Gap to the kernel: the scale c = fl(√fl(d)) is any
    non-zero number here; its own error (the factor κ of scores.md) and overflow are handled
    in proofs/attention_scaling.tex, not in Coq. Additions are modelled exactly as IEEE does
    them: a sum that is small enough to be subnormal is exact, so only products contribute η. *)
From Coq Require Import Reals Lia Lra Psatz.
From Flocq Require Import Core.Core Relative Plus_error.
From Attncheck Require Import Sums.
Open Scope R_scope.

(** The step of [dot_fl_error_gamma] where the addition rounds, as real arithmetic: with
    a = T·u, g_T = a/(1 − a), the error E ≤ g_T·A + 2T·h of T terms and the product's u|p| + h
    grow by one relative rounding to within g_{T+1}(A + |p|) + 2(T+1)h, because a sum that rounds
    exceeds B = 2^(prec+emin) = 2h/u, and then A + |p| is so large that the room
    (g_{T+1} − (1+u)g_T − u)(A + |p|) exceeds the growth ((2T+1)u − 1)h of the subnormal part. *)
Lemma dot_step_alg (u h T A P B : R) :
  0 < u -> 0 < h -> 1 <= T -> (T + 1) * u < 1 -> 0 <= A -> 0 <= P ->
  B * u = 2 * h ->
  B < A + P + (T * u / (1 - T * u) * A + 2 * T * h) + (u * P + h) ->
  u * (A + P) + (1 + u) * ((T * u / (1 - T * u) * A + 2 * T * h) + (u * P + h))
  <= (T + 1) * u / (1 - (T + 1) * u) * (A + P) + 2 * (T + 1) * h.
Proof.
  intros Hu Hh HT HTu HA HP HB Hx.
  assert (Ha : u <= T * u) by nra.
  assert (HD' : 0 < 1 - T * u - u) by nra.
  assert (HD : 0 < 1 - T * u) by lra.
  remember (T * u) as a eqn:Ea.
  replace ((T + 1) * u) with (a + u) by (subst; ring).
  remember (1 - a) as D eqn:ED. remember (1 - a - u) as D' eqn:ED'.
  replace (1 - (a + u)) with D' by (subst; ring).
  assert (Hg' : (a + u) / D' = (a + u) / D + (a + u) * u / (D * D')) by (subst; field; lra).
  set (s := (a + u) * u / (D * D')) in *.
  assert (Hs : 0 <= s) by (unfold s; apply Rmult_le_pos; [nra | left; apply Rinv_0_lt_compat; nra]).
  assert (H1 : u * (A + P) + (1 + u) * (a / D * A + 2 * T * h + (u * P + h))
               = (a + u) / D * A + (2 * u + u * u) * P + (1 + u) * (2 * T + 1) * h)
    by (subst; field; lra).
  assert (H2 : 2 * u + u * u <= (a + u) / D).
  { apply (Rmult_le_reg_r D); [exact HD|]. unfold Rdiv. rewrite Rmult_assoc, Rinv_l, Rmult_1_r by lra.
    subst. nra. }
  assert (Hg : u <= a / D).
  { apply (Rmult_le_reg_r D); [exact HD|]. unfold Rdiv. rewrite Rmult_assoc, Rinv_l, Rmult_1_r by lra.
    subst. nra. }
  assert (H4 : B - (2 * T + 1) * h < (A + P) / D).
  { assert (E : (A + P) / D = (1 + a / D) * (A + P)) by (subst; field; lra).
    rewrite E. nra. }
  assert (H5 : 2 * h * (a + u) <= s * (A + P)).
  { assert (E5 : s * (A + P) = (a + u) * u / D' * ((A + P) / D)) by (unfold s; field; lra).
    rewrite E5.
    assert (Hk : 0 <= (a + u) * u / D') by (apply Rmult_le_pos; [nra | left; apply Rinv_0_lt_compat; lra]).
    apply (Rle_trans _ ((a + u) * u / D' * (B - (2 * T + 1) * h))); [| apply Rmult_le_compat_l; lra].
    assert (E6 : (a + u) * u / D' * (B - (2 * T + 1) * h) = (a + u) * h * (2 - 2 * a - u) / D').
    { assert (HB' : B = 2 * h / u) by (apply (Rmult_eq_reg_r u); [rewrite HB; field|]; lra).
      rewrite HB'. subst. field. repeat split; lra. }
    rewrite E6.
    assert (E7 : (a + u) * h * (2 - 2 * a - u) / D' = 2 * h * (a + u) + (a + u) * h * u / D')
      by (subst; field; lra).
    assert (0 <= (a + u) * h * u / D')
      by (unfold Rdiv; apply Rmult_le_pos; [nra | left; apply Rinv_0_lt_compat; subst; lra]).
    lra. }
  rewrite H1, Hg'. nra.
Qed.

Section Scores.
Variable emin prec : Z.
Context (prec_gt_0_ : Prec_gt_0 prec).
Variable choice : Z -> bool.
Notation format := (generic_format radix2 (FLT_exp emin prec)).
Notation fl := (round radix2 (FLT_exp emin prec) (Znearest choice)).
(** The unit roundoff u = 2^−prec and half the subnormal spacing. *)
Definition u := / 2 * bpow radix2 (- prec + 1).
Definition half_eta := / 2 * bpow radix2 emin.

Lemma u_pos : 0 < u.
Proof. unfold u. apply Rmult_lt_0_compat; [lra | apply bpow_gt_0]. Qed.

Lemma half_eta_pos : 0 < half_eta.
Proof. unfold half_eta. apply Rmult_lt_0_compat; [lra | apply bpow_gt_0]. Qed.

(** The standard model of one rounding: fl(x) = x(1 + ε) + α, |ε| ≤ u, |α| ≤ η/2. *)
Lemma standard_model x : exists eps alpha, Rabs eps <= u /\ Rabs alpha <= half_eta /\ fl x = x * (1 + eps) + alpha.
Proof.
  destruct (error_N_FLT radix2 emin prec prec_gt_0_ choice x) as [eps [alpha [He [Ha [_ H]]]]].
  exists eps, alpha. unfold u, half_eta. auto.
Qed.

(** A sum of two floats is rounded relatively: fl(x + y) = (x + y)(1 + δ), |δ| ≤ u. *)
Lemma plus_model x y : format x -> format y -> exists delta, Rabs delta <= u /\ fl (x + y) = (x + y) * (1 + delta).
Proof.
  intros Fx Fy. pose proof u_pos.
  destruct (Rle_or_lt (Rabs (x + y)) (bpow radix2 (prec + emin))) as [Hs|Hl].
  - exists 0. split; [rewrite Rabs_R0; lra|]. rewrite round_generic.
    + ring.
    + apply valid_rnd_N.
    + apply FLT_format_plus_small; assumption.
  - assert (Hbig : bpow radix2 (emin + prec - 1) <= Rabs (x + y)).
    { left. apply (Rle_lt_trans _ (bpow radix2 (prec + emin))); [apply bpow_le; lia | exact Hl]. }
    pose proof (relative_error_N_FLT radix2 emin prec prec_gt_0_ choice (x + y) Hbig) as Hrel.
    assert (Hnz : x + y <> 0).
    { intros Hz. rewrite Hz, Rabs_R0 in Hl. pose proof (bpow_gt_0 radix2 (prec + emin)). lra. }
    exists ((fl (x + y) - (x + y)) / (x + y)). split.
    + unfold Rdiv. rewrite Rabs_mult, Rabs_inv.
      apply (Rmult_le_reg_r (Rabs (x + y))); [apply Rabs_pos_lt, Hnz|].
      rewrite Rmult_assoc, Rinv_l, Rmult_1_r by (apply Rabs_no_R0, Hnz). exact Hrel.
    + field. exact Hnz.
Qed.

(** The kernel's recursive dot product (kernels::dot): acc ← fl(acc + fl(q_t·k_t)). *)
Fixpoint dot_fl (n : nat) (q k : nat -> R) : R :=
  match n with O => 0 | S t => fl (dot_fl t q k + fl (q t * k t)) end.

Lemma dot_fl_format n q k : format (dot_fl n q k).
Proof.
  destruct n as [|n]; simpl.
  - apply generic_format_0.
  - apply generic_format_round; [apply FLT_exp_valid; exact prec_gt_0_ | apply valid_rnd_N].
Qed.

(** ASCL-INV-002 (dot product): |acc_d − q·k| ≤ ((1+u)^d − 1)·Σ|q_t k_t| + d·(η/2)·(1+u)^d. *)
Theorem dot_fl_error n q k :
  Rabs (dot_fl n q k - sum n (fun t => q t * k t))
  <= ((1 + u) ^ n - 1) * sum n (fun t => Rabs (q t * k t)) + INR n * half_eta * (1 + u) ^ n.
Proof.
  pose proof u_pos as Hu. pose proof half_eta_pos as He.
  induction n as [|t IH].
  - simpl. rewrite Rminus_0_r, Rabs_R0. lra.
  - set (p := q t * k t). set (Sq := sum t (fun i => q i * k i)). set (A := sum t (fun i => Rabs (q i * k i))).
    set (acc := dot_fl t q k). set (r := 1 + u).
    assert (HA : Rabs Sq <= A).
    { unfold Sq, A. clear. induction t as [|t IH]; simpl; [rewrite Rabs_R0; lra|].
      apply (Rle_trans _ _ _ (Rabs_triang _ _)). lra. }
    assert (HA0 : 0 <= A) by (apply (Rle_trans _ _ _ (Rabs_pos Sq) HA)).
    assert (Hr1 : 1 <= r) by (unfold r; lra).
    assert (Hrt : 1 <= r ^ t) by (apply pow_R1_Rle; exact Hr1).
    destruct (standard_model p) as [eps [alpha [Heps [Hal Hp]]]].
    assert (Hpe : Rabs (fl p - p) <= u * Rabs p + half_eta).
    { rewrite Hp. replace (p * (1 + eps) + alpha - p) with (p * eps + alpha) by ring.
      apply (Rle_trans _ _ _ (Rabs_triang _ _)). rewrite Rabs_mult.
      pose proof (Rabs_pos p). pose proof (Rabs_pos eps). nra. }
    change (dot_fl (S t) q k) with (fl (acc + fl p)).
    change (sum (S t) (fun i => q i * k i)) with (Sq + p).
    change (sum (S t) (fun i => Rabs (q i * k i))) with (A + Rabs p).
    rewrite S_INR. simpl pow. fold r.
    destruct t as [|t'].
    + (* one term: acc = 0 and 0 + fl(p) is exact *)
      unfold acc, Sq, A. simpl. rewrite Rplus_0_l, Rplus_0_l.
      rewrite round_generic; [| apply valid_rnd_N |
        apply generic_format_round; [apply FLT_exp_valid; exact prec_gt_0_ | apply valid_rnd_N]].
      unfold r. rewrite Rmult_1_r. nra.
    + (* two or more terms: the addition rounds relatively *)
      assert (Fp : format (fl p))
        by (apply generic_format_round; [apply FLT_exp_valid; exact prec_gt_0_ | apply valid_rnd_N]).
      destruct (plus_model acc (fl p) (dot_fl_format (S t') q k) Fp) as [delta [Hd Hplus]].
      rewrite Hplus.
      replace ((acc + fl p) * (1 + delta) - (Sq + p))
        with ((acc - Sq) * (1 + delta) + delta * Sq + (fl p - p) * (1 + delta) + delta * p) by ring.
      fold Sq A acc in IH.
      assert (H1d : Rabs (1 + delta) <= r).
      { unfold r. apply (Rle_trans _ _ _ (Rabs_triang _ _)). rewrite Rabs_R1. lra. }
      assert (Hr2 : r * r <= r * r ^ S t').
      { apply Rmult_le_compat_l; [lra|]. simpl. pose proof (pow_R1_Rle r t' Hr1). nra. }
      assert (E1 : Rabs ((acc - Sq) * (1 + delta)) <= (((r ^ S t') - 1) * A + INR (S t') * half_eta * r ^ S t') * r).
      { rewrite Rabs_mult. apply Rmult_le_compat; [apply Rabs_pos | apply Rabs_pos | exact IH | exact H1d]. }
      assert (E2 : Rabs (delta * Sq) <= u * A).
      { rewrite Rabs_mult. apply Rmult_le_compat; [apply Rabs_pos | apply Rabs_pos | exact Hd | exact HA]. }
      assert (E3 : Rabs ((fl p - p) * (1 + delta)) <= (u * Rabs p + half_eta) * r).
      { rewrite Rabs_mult. apply Rmult_le_compat; [apply Rabs_pos | apply Rabs_pos | exact Hpe | exact H1d]. }
      assert (E4 : Rabs (delta * p) <= u * Rabs p).
      { rewrite Rabs_mult. apply Rmult_le_compat_r; [apply Rabs_pos | exact Hd]. }
      pose proof (Rabs_pos p) as Hp0. pose proof (pos_INR (S t')) as HI.
      apply (Rle_trans _ _ _ (Rabs_triang _ _)).
      apply (Rle_trans _ (Rabs ((acc - Sq) * (1 + delta)) + Rabs (delta * Sq) + Rabs ((fl p - p) * (1 + delta))
                          + Rabs (delta * p))).
      { apply Rplus_le_compat_r. apply (Rle_trans _ _ _ (Rabs_triang _ _)). apply Rplus_le_compat_r.
        apply Rabs_triang. }
      assert (Hrr : r ^ S t' * r = r * r ^ S t') by ring.
      unfold r in *. nra.
Qed.

(** (1+u)^n − 1 ≤ γ_n = n·u/(1 − n·u) while n·u < 1 (Higham's Lemma 3.1). *)
Theorem pow_sub_1_le_gamma n : INR n * u < 1 -> (1 + u) ^ n - 1 <= INR n * u / (1 - INR n * u).
Proof.
  pose proof u_pos as Hu. intros Hn.
  assert (H : (1 + u) ^ n <= / (1 - INR n * u)).
  { induction n as [|n IH].
    - simpl. rewrite Rmult_0_l, Rminus_0_r, Rinv_1. lra.
    - rewrite S_INR in Hn |- *. pose proof (pos_INR n).
      assert (IH' : (1 + u) ^ n <= / (1 - INR n * u)) by (apply IH; nra).
      simpl. apply (Rle_trans _ ((1 + u) * / (1 - INR n * u))).
      + apply Rmult_le_compat_l; [lra | exact IH'].
      + apply (Rmult_le_reg_r ((1 - INR n * u) * (1 - (INR n + 1) * u))); [nra|].
        replace ((1 + u) * / (1 - INR n * u) * ((1 - INR n * u) * (1 - (INR n + 1) * u)))
          with ((1 + u) * (1 - (INR n + 1) * u)) by (field; nra).
        replace (/ (1 - (INR n + 1) * u) * ((1 - INR n * u) * (1 - (INR n + 1) * u)))
          with (1 - INR n * u) by (field; nra).
        nra. }
  replace (INR n * u / (1 - INR n * u)) with (/ (1 - INR n * u) - 1) by (field; lra). lra.
Qed.

(** The dot product with the C++ term for its subnormal products (issue 47): while n·u < 1,
    |acc_n − q·k| ≤ γ_n·Σ|q_t k_t| + n·η, η = 2^emin ([Model::eta]), the form that
    [bounds::softmax_jvp_bound] (μ̂) and [bounds::attention_output_bound] evaluate. [dot_fl_error]
    gives n(η/2)(1+u)^n for the subnormal part, at most nη only while (1+u)^n ≤ 2; here the
    invariant is γ_t·Σ|q k| + 2t·(η/2) itself, by induction: an exact addition adds the product's
    u|p| + η/2, and an addition that rounds happens only above 2^(prec+emin), where the room
    between γ_{t+1} and (1+u)γ_t + u pays for the growth of the subnormal part
    ([dot_step_alg]). *)
Theorem dot_fl_error_gamma n q k :
  INR n * u < 1 ->
  Rabs (dot_fl n q k - sum n (fun t => q t * k t))
  <= INR n * u / (1 - INR n * u) * sum n (fun t => Rabs (q t * k t)) + INR n * (2 * half_eta).
Proof.
  pose proof u_pos as Hu. pose proof half_eta_pos as He.
  induction n as [|t IH]; intros Hn.
  - simpl. rewrite Rminus_0_r, Rabs_R0. lra.
  - rewrite S_INR in Hn. pose proof (pos_INR t) as Ht0.
    assert (IH' := IH ltac:(nra)).
    set (p := q t * k t). set (Sq := sum t (fun i => q i * k i)). set (A := sum t (fun i => Rabs (q i * k i))).
    set (acc := dot_fl t q k). fold Sq A acc in IH'.
    assert (HA : Rabs Sq <= A).
    { unfold Sq, A. clear. induction t as [|t IH]; simpl; [rewrite Rabs_R0; lra|].
      apply (Rle_trans _ _ _ (Rabs_triang _ _)). lra. }
    assert (HA0 : 0 <= A) by (apply (Rle_trans _ _ _ (Rabs_pos Sq) HA)).
    destruct (standard_model p) as [eps [alpha [Heps [Hal Hp]]]].
    assert (Hpe : Rabs (fl p - p) <= u * Rabs p + half_eta).
    { rewrite Hp. replace (p * (1 + eps) + alpha - p) with (p * eps + alpha) by ring.
      apply (Rle_trans _ _ _ (Rabs_triang _ _)). rewrite Rabs_mult.
      pose proof (Rabs_pos p). pose proof (Rabs_pos eps). nra. }
    change (dot_fl (S t) q k) with (fl (acc + fl p)).
    change (sum (S t) (fun i => q i * k i)) with (Sq + p).
    change (sum (S t) (fun i => Rabs (q i * k i))) with (A + Rabs p).
    rewrite S_INR.
    pose proof (Rabs_pos p) as Hp0.
    assert (Hg1 : u <= (INR t + 1) * u / (1 - (INR t + 1) * u)).
    { apply (Rmult_le_reg_r (1 - (INR t + 1) * u)); [lra|]. unfold Rdiv.
      rewrite Rmult_assoc, Rinv_l, Rmult_1_r by lra. nra. }
    assert (Hgm : INR t * u / (1 - INR t * u) <= (INR t + 1) * u / (1 - (INR t + 1) * u)).
    { unfold Rdiv. apply Rmult_le_compat; [nra | left; apply Rinv_0_lt_compat; nra | nra |].
      apply Rinv_le_contravar; nra. }
    assert (Fp : format (fl p))
      by (apply generic_format_round; [apply FLT_exp_valid; exact prec_gt_0_ | apply valid_rnd_N]).
    destruct (Rle_or_lt (Rabs (acc + fl p)) (bpow radix2 (prec + emin))) as [Hs|Hl].
    + (* the addition is exact *)
      rewrite round_generic; [| apply valid_rnd_N | apply FLT_format_plus_small;
        [exact prec_gt_0_ | apply dot_fl_format | exact Fp | exact Hs]].
      replace (acc + fl p - (Sq + p)) with ((acc - Sq) + (fl p - p)) by ring.
      apply (Rle_trans _ _ _ (Rabs_triang _ _)).
      assert (0 <= INR t * u / (1 - INR t * u)) by (apply Rmult_le_pos; [nra | left; apply Rinv_0_lt_compat; nra]).
      nra.
    + destruct (Nat.eq_dec t 0) as [Ht|Ht].
      * (* one term: 0 + fl(p) is fl(p) *)
        subst t. unfold acc in *. simpl in *. rewrite Rplus_0_l. rewrite round_generic by (apply valid_rnd_N || exact Fp).
        unfold Sq. rewrite Rplus_0_l. unfold A. nra.
      * (* the addition rounds relatively, and then the sum is at least 2^(prec+emin) *)
        assert (Hbig : bpow radix2 (emin + prec - 1) <= Rabs (acc + fl p)).
        { apply Rlt_le. apply (Rle_lt_trans _ (bpow radix2 (prec + emin))); [apply bpow_le; lia | exact Hl]. }
        pose proof (relative_error_N_FLT radix2 emin prec prec_gt_0_ choice (acc + fl p) Hbig) as Hrel.
        fold u in Hrel.
        replace (fl (acc + fl p) - (Sq + p))
          with ((fl (acc + fl p) - (acc + fl p)) + (acc - Sq) + (fl p - p)) by ring.
        assert (Hx : Rabs (acc + fl p) <= A + Rabs p + Rabs (acc - Sq) + Rabs (fl p - p)).
        { replace (acc + fl p) with (Sq + p + (acc - Sq) + (fl p - p)) by ring.
          repeat (apply (Rle_trans _ _ _ (Rabs_triang _ _)); apply Rplus_le_compat_r). lra. }
                assert (HT1 : 1 <= INR t) by (destruct t; [lia | rewrite S_INR; pose proof (pos_INR t); lra]).
        assert (HB : bpow radix2 (prec + emin) * u = 2 * half_eta).
        { unfold u, half_eta.
          rewrite <- Rmult_assoc, (Rmult_comm _ (/ 2)), Rmult_assoc, <- bpow_plus.
          replace (prec + emin + (- prec + 1))%Z with (emin + 1)%Z by ring.
          rewrite bpow_plus. simpl. unfold Z.pow_pos. simpl. lra. }
        pose proof (dot_step_alg u half_eta (INR t) A (Rabs p) (bpow radix2 (prec + emin))
                      Hu He HT1 ltac:(lra) HA0 Hp0 HB) as Halg.
        assert (0 <= INR t * u / (1 - INR t * u)) by (apply Rmult_le_pos; [nra | left; apply Rinv_0_lt_compat; nra]).
        apply (Rle_trans _ (u * (A + Rabs p) + (1 + u) * ((INR t * u / (1 - INR t * u) * A + 2 * INR t * half_eta) + (u * Rabs p + half_eta)))).
        -- apply (Rle_trans _ _ _ (Rabs_triang _ _)).
           apply (Rle_trans _ (u * Rabs (acc + fl p) + Rabs (acc - Sq) + Rabs (fl p - p))).
           ++ apply Rplus_le_compat_r. apply (Rle_trans _ _ _ (Rabs_triang _ _)). lra.
           ++ pose proof (Rabs_pos (acc - Sq)). pose proof (Rabs_pos (fl p - p)). nra.
        -- replace (INR t * (2 * half_eta)) with (2 * INR t * half_eta) in IH' by ring.
           replace ((INR t + 1) * (2 * half_eta)) with (2 * (INR t + 1) * half_eta) by ring.
           apply Halg. apply (Rlt_le_trans _ _ _ Hl). apply (Rle_trans _ _ _ Hx). lra.
Qed.

(** ASCL-INV-002 (scaled score): dividing the computed dot product by any scale c ≠ 0 adds one
    rounding: |fl(acc/c) − q·k/c| ≤ E/|c|·(1+u) + u·|q·k/c| + η/2, E the bound of [dot_fl_error]. *)
Theorem scaled_score_error d q k c :
  c <> 0 ->
  Rabs (fl (dot_fl d q k / c) - sum d (fun t => q t * k t) / c)
  <= (((1 + u) ^ d - 1) * sum d (fun t => Rabs (q t * k t)) + INR d * half_eta * (1 + u) ^ d)
       / Rabs c * (1 + u)
     + u * Rabs (sum d (fun t => q t * k t) / c) + half_eta.
Proof.
  intros Hc. pose proof u_pos as Hu. pose proof (Rabs_pos_lt c Hc) as Hcp.
  set (acc := dot_fl d q k). set (Sq := sum d (fun t => q t * k t)).
  set (E := ((1 + u) ^ d - 1) * sum d (fun t => Rabs (q t * k t)) + INR d * half_eta * (1 + u) ^ d).
  assert (HE : Rabs (acc - Sq) <= E) by apply dot_fl_error.
  destruct (standard_model (acc / c)) as [eps [alpha [Heps [Hal Hfl]]]].
  rewrite Hfl.
  replace (acc / c * (1 + eps) + alpha - Sq / c) with ((acc - Sq) / c * (1 + eps) + Sq / c * eps + alpha)
    by (field; exact Hc).
  apply (Rle_trans _ _ _ (Rabs_triang _ _)). apply Rplus_le_compat; [|exact Hal].
  apply (Rle_trans _ _ _ (Rabs_triang _ _)). apply Rplus_le_compat.
  - rewrite Rabs_mult. apply Rmult_le_compat; [apply Rabs_pos | apply Rabs_pos | |].
    + unfold Rdiv. rewrite Rabs_mult, Rabs_inv. apply Rmult_le_compat_r; [|exact HE].
      left. apply Rinv_0_lt_compat, Hcp.
    + apply (Rle_trans _ _ _ (Rabs_triang _ _)). rewrite Rabs_R1. lra.
  - rewrite Rabs_mult, (Rmult_comm u). apply Rmult_le_compat_l; [apply Rabs_pos | exact Heps].
Qed.
End Scores.
