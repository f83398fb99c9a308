(** * The split-KV merge in binary floating point (attention-merge-v1: MERGE-BND-001, issue 47) *)
(** The theorems behind what [bounds::merge_row_error] and [bounds::attention_merge_exact]
    (src/attncheck/bounds/attention_merge.hpp) evaluate, for the operation order of the reference
    kernel template (src/attncheck/kernels/attention_merge.hpp, order (A): the weights normalised
    first): M = max_s ℓ_s, â_s = exp(fl(ℓ_s − M)), Ẑ the recursive sum, ŵ_s = fl(â_s/Ẑ),
    LSE = fl(M + log Ẑ), ô_c = ((0 + fl(ŵ_0 O_0c)) + fl(ŵ_1 O_1c)) + … — the softmax kernel of
    SoftmaxRounding.v over the partial LSEs, then the recursive dot product of ScoresRounding.v.
    Any binary format with gradual underflow (Flocq's FLT, emin ≤ 0), round to nearest, every
    number of splits S with (S+1)·u < 1 and 6u < 1, wherever the C++ bound is finite (ζ < Z).
    Proved: the LSE within λ·slack of L = log Σ_s e^{ℓ_s} ([merge_fl_lse]) and each output
    element within (first + γ_{S+1}·second + (S+1)η)·slack of Σ_s w_s O_sc ([merge_fl_output]).
    What Coq cannot see is a Section hypothesis: the libm's exp as in SoftmaxRounding.v, with
    exp(0) = 1, and its log, relatively accurate at floats s ≥ 1. Outside Coq: an empty split
    (ℓ_s = −inf, whose weight the kernel makes an exact 0; here every ℓ_s is a finite float), the
    other orders the C++ bound also covers ((B), (C), base-2 exponents: [rho_c] is transcribed and
    only enlarges ρ_s here), mixed precision ([round_out] is the identity here), overflow, flush to
    zero, and the evaluation of the bound in long double from L rounded to long double
    ([evaluation_slack]: here [slack] ≥ 1, and the bound evaluated exactly). *)
From Coq Require Import Reals Lia Lra Psatz.
From Flocq Require Import Core.Core Relative.
From Attncheck Require Import Sums ScoresRounding SoftmaxRounding.
Open Scope R_scope.

Section Merge.
Variable emin prec : Z.
Context (prec_gt_0_ : Prec_gt_0 prec).
Variable choice : Z -> bool.
Notation format := (generic_format radix2 (FLT_exp emin prec)).
Notation fl := (round radix2 (FLT_exp emin prec) (Znearest choice)).
Notation u := (ScoresRounding.u prec).
Notation eta := (SoftmaxRounding.eta emin).
Notation gamma := (SoftmaxRounding.gamma prec).
Hypothesis emin_le_0 : (emin <= 0)%Z.
Variable exp_fl : R -> R.
Variable e_exp : R.
Hypothesis e_exp_range : 0 <= e_exp <= 1.
Hypothesis exp_fl_format : forall t, format t -> t <= 0 -> format (exp_fl t).
Hypothesis exp_fl_nonneg : forall t, format t -> t <= 0 -> 0 <= exp_fl t.
Hypothesis exp_fl_accurate :
  forall t, format t -> t <= 0 -> Rabs (exp_fl t - exp t) <= e_exp * exp t + eta.
Hypothesis exp_fl_0 : exp_fl 0 = 1.
Variable log_fl : R -> R.
Variable e_log : R.
Hypothesis e_log_nonneg : 0 <= e_log.
Hypothesis log_fl_format : forall s, format s -> 1 <= s -> format (log_fl s).
Hypothesis log_fl_accurate : forall s, format s -> 1 <= s -> Rabs (log_fl s - ln s) <= e_log * Rabs (ln s).

Notation row_sum_fl := (row_sum_fl emin prec choice).
Notation exps_fl := (exps_fl emin prec choice exp_fl).

(** The exponent step: â_s = exp(fl(ℓ_s − M)) lies in [a_s·c_s − η, a_s(1 + r_s) + η] with
    a_s = exp(ℓ_s − M), 1 + r_s = e^θ(1 + e_exp), c_s = e^−θ(1 − e_exp), for any θ ≥ u·|ℓ_s − M|. *)
Lemma exp_step S l s theta :
  (0 < S)%nat -> (forall j, (j < S)%nat -> format (l j)) -> (s < S)%nat ->
  u * Rabs (l s - row_max S l) <= theta ->
  format (exps_fl S l s) /\ 0 <= exps_fl S l s /\
  exp (l s - row_max S l) * (exp (- theta) * (1 - e_exp)) - eta <= exps_fl S l s /\
  exps_fl S l s <= exp (l s - row_max S l) * (exp theta * (1 + e_exp)) + eta.
Proof.
  intros HS Fl Hs Ht.
  destruct (row_max_spec S l HS) as [Hmax [k [Hk Hm]]].
  set (M := row_max S l) in *. set (t := l s - M).
  assert (Ht0 : t <= 0) by (unfold t; pose proof (Hmax s Hs); lra).
  assert (FM : format M) by (rewrite Hm; apply Fl, Hk).
  assert (Fm : format (- M)) by (apply generic_format_opp, FM).
  destruct (plus_model emin prec prec_gt_0_ choice (l s) (- M) (Fl s Hs) Fm) as [d [Hd Hp]].
  set (th := fl (l s - M)).
  assert (Hth : th = t * (1 + d)) by (unfold th, t; unfold Rminus; exact Hp).
  assert (Fth : format th) by (apply generic_format_round; [apply FLT_exp_valid; exact prec_gt_0_ | apply valid_rnd_N]).
  assert (Hth0 : th <= 0).
  { unfold th. rewrite <- (round_0 radix2 (FLT_exp emin prec) (Znearest choice)).
    apply round_le; [apply FLT_exp_valid; exact prec_gt_0_ | apply valid_rnd_N | exact Ht0]. }
  assert (Hdiff : Rabs (th - t) <= theta).
  { rewrite Hth. replace (t * (1 + d) - t) with (t * d) by ring. rewrite Rabs_mult.
    apply (Rle_trans _ (Rabs t * u)); [apply Rmult_le_compat_l; [apply Rabs_pos | exact Hd]|].
    rewrite Rmult_comm. exact Ht. }
  apply Rabs_le_inv in Hdiff.
  assert (E1 : exp th <= exp t * exp theta) by (rewrite <- exp_plus; apply exp_le_compat; lra).
  assert (E2 : exp t * exp (- theta) <= exp th) by (rewrite <- exp_plus; apply exp_le_compat; lra).
  pose proof (exp_fl_accurate th Fth Hth0) as Hacc. apply Rabs_le_inv in Hacc.
  pose proof (exp_pos th). pose proof (exp_pos t). pose proof (exp_pos theta). pose proof (exp_pos (- theta)).
  unfold exps_fl. fold M th. fold t.
  repeat split.
  - apply exp_fl_format; assumption.
  - apply exp_fl_nonneg; assumption.
  - assert (exp t * (exp (- theta) * (1 - e_exp)) <= exp th * (1 - e_exp)) by (rewrite <- Rmult_assoc; apply Rmult_le_compat_r; lra).
    lra.
  - assert (exp th * (1 + e_exp) <= exp t * (exp theta * (1 + e_exp))) by (rewrite <- Rmult_assoc; apply Rmult_le_compat_r; lra).
    lra.
Qed.

(** The kernel (src/attncheck/kernels/attention_merge.hpp, [MergeSteps::weights] and [combine]):
    [M = row_max(l, S); w[s] = shifted_exp_step(l[s], M); Z = row_sum(w, S);
    w[s] = T(w[s] / Z); return T(M + log(Z));] and [o[c] = dot_step(o[c], w[s], ps[c]);]
    {transcribes src/attncheck/kernels/attention_merge.hpp weights #784ebf3f}
    {transcribes src/attncheck/kernels/attention_merge.hpp combine #9afb4bc2}
    The weights are the softmax kernel's outputs over the partial LSEs, the output element the
    recursive dot product of ScoresRounding.v; [O s] is the element O_sc of split s. *)
Definition merge_w_fl (S : nat) (l : nat -> R) (s : nat) : R := softmax_fl emin prec choice exp_fl S l s.
Definition merge_lse_fl (S : nat) (l : nat -> R) : R :=
  fl (row_max S l + log_fl (row_sum_fl S (exps_fl S l))).
Definition merge_o_fl (S : nat) (l O : nat -> R) : R := dot_fl emin prec choice S (merge_w_fl S l) O.

(** The bound, one line of [merge_row_error] (every ℓ_s finite: no split skipped) and of
    [attention_merge_exact]'s allowance each, for a model with [md.mixed()] false; L, M, w exact.
    {transcribes src/attncheck/bounds/attention_merge.hpp merge_row_error #bcd1cc97}
    {transcribes src/attncheck/bounds/attention_merge.hpp attention_merge_exact #c886f763} *)
Section Bound.
Variable slack : R.
Variable S : nat.
Variable l O : nat -> R.
Definition mM : R := row_max S l.
Definition mL : R := mM + ln (partition S l).
Definition mw (s : nat) : R := p S l s.
Definition mZ : R := exp (mL - mM).
Definition mtheta (s : nat) : R := gamma 4 * (Rabs (l s) + Rabs mM).
Definition mr (s : nat) : R := exp (mtheta s) * (1 + e_exp) - 1.
Definition mA : R := sum S (fun s => mw s * mZ * mr s + eta).
Definition mzeta : R := mA + gamma S * (mZ + mA).
Definition mlnZ : R := mL - mM.
Definition mnu : R := - ln (1 - mzeta / mZ).
Definition mg : R := mnu + e_log * (mlnZ + mnu).
Definition mlambda : R := mg + gamma 6 * (Rabs mM + mlnZ + mg).
Definition mrho_a (s : nat) : R := (1 + mr s) * (1 + gamma 2) / (1 - mzeta / mZ) - 1.
Definition mrho_c (s : nat) : R := exp (mlambda + gamma 4 * (Rabs (l s) + Rabs mL + mlambda)) * (1 + e_exp) - 1.
Definition mrho (s : nat) : R := Rmax (mrho_a s) (mrho_c s).
Definition mweight_abs : R := eta * (1 + (1 + gamma 2) / (mZ - mzeta)).
Definition merge_lse_allowance : R := mlambda * slack.
Definition mfirst : R := sum S (fun s => (mw s * mrho s + mweight_abs) * Rabs (O s)).
Definition msecond : R := sum S (fun s => (mw s * (1 + mrho s) + mweight_abs) * Rabs (O s)).
Definition merge_o_allowance : R := (mfirst + gamma (S + 1) * msecond + INR (S + 1) * eta) * slack.
End Bound.

Lemma gamma_mono j k : (j <= k)%nat -> INR k * u < 1 -> gamma j <= gamma k.
Proof.
  intros Hjk Hk. pose proof (u_pos prec). apply le_INR in Hjk. pose proof (pos_INR j).
  unfold SoftmaxRounding.gamma. unfold Rdiv. apply Rmult_le_compat; [nra | left; apply Rinv_0_lt_compat; nra | nra |].
  apply Rinv_le_contravar; nra.
Qed.

Lemma u_le_gamma k : (1 <= k)%nat -> INR k * u < 1 -> u <= gamma k.
Proof.
  intros Hk Hku. pose proof (u_pos prec). apply le_INR in Hk. simpl in Hk.
  unfold SoftmaxRounding.gamma. apply (Rmult_le_reg_r (1 - INR k * u)); [lra|].
  unfold Rdiv. rewrite Rmult_assoc, Rinv_l, Rmult_1_r by lra. nra.
Qed.

Lemma mZ_eq S l : (0 < S)%nat -> mZ S l = partition S l.
Proof.
  intros HS. unfold mZ, mL. replace (mM S l + ln (partition S l) - mM S l) with (ln (partition S l)) by ring.
  apply exp_ln. pose proof (partition_ge_1 S l HS). lra.
Qed.

(** Step 1: |â_s − a_s| ≤ a_s r_s + η and |Ẑ − Z| ≤ ζ. *)
Lemma merge_Z_hat S l :
  (0 < S)%nat -> (forall j, (j < S)%nat -> format (l j)) -> INR S * u < 1 -> 4 * u < 1 ->
  (forall s, (s < S)%nat -> Rabs (exps_fl S l s - mw S l s * mZ S l) <= mw S l s * mZ S l * mr S l s + eta) /\
  Rabs (row_sum_fl S (exps_fl S l) - mZ S l) <= mzeta S l.
Proof.
  intros HS Fl HSu H4u. pose proof (u_pos prec) as Hu.
  assert (HZ : 1 <= mZ S l) by (rewrite mZ_eq by exact HS; apply partition_ge_1, HS).
  assert (Ha : forall s, (s < S)%nat -> mw S l s * mZ S l = exp (l s - row_max S l)).
  { intros s Hs. rewrite mZ_eq by exact HS. unfold mw, p, shifted. pose proof (partition_ge_1 S l HS). field. lra. }
  assert (Hg4 : u <= gamma 4) by (apply u_le_gamma; [lia | simpl; lra]).
  assert (Hstep : forall s, (s < S)%nat ->
            format (exps_fl S l s) /\ 0 <= exps_fl S l s /\
            Rabs (exps_fl S l s - mw S l s * mZ S l) <= mw S l s * mZ S l * mr S l s + eta).
  { intros s Hs. rewrite (Ha s Hs).
    assert (Hth : u * Rabs (l s - row_max S l) <= mtheta S l s).
    { unfold mtheta, mM. unfold Rminus. apply (Rle_trans _ (u * (Rabs (l s) + Rabs (row_max S l)))).
      - apply Rmult_le_compat_l; [lra|]. apply (Rle_trans _ _ _ (Rabs_triang _ _)). rewrite Rabs_Ropp. lra.
      - apply Rmult_le_compat_r; [pose proof (Rabs_pos (l s)); pose proof (Rabs_pos (row_max S l)); lra | exact Hg4]. }
    destruct (exp_step S l s (mtheta S l s) HS Fl Hs Hth) as [F [N [Lo Hi]]].
    split; [exact F|]. split; [exact N|].
    unfold mr. set (a := exp (l s - row_max S l)). set (th := mtheta S l s) in *.
    assert (Hth0 : 0 <= th) by (apply (Rle_trans _ _ _ (Rmult_le_pos _ _ (Rlt_le _ _ Hu) (Rabs_pos _)) Hth)).
    pose proof (exp_pos (l s - row_max S l)) as Hapos. fold a in Hapos.
    assert (Hcosh : 2 <= exp th + exp (- th)).
    { assert (exp th * exp (- th) = 1) by (rewrite <- exp_plus; replace (th + - th) with 0 by ring; apply exp_0).
      pose proof (exp_pos th). pose proof (exp_pos (- th)). pose proof (pow2_ge_0 (exp th - exp (- th))). nra. }
    assert (Hsinh : exp (- th) <= exp th) by (apply exp_le_compat; lra).
    assert (Hc : exp (- th) * (1 - e_exp) >= 1 - (exp th * (1 + e_exp) - 1)) by nra.
    set (X := exp th * (1 + e_exp)) in *. set (Y := exp (- th) * (1 - e_exp)) in *.
    assert (HaY : a * (2 - X) <= a * Y) by (apply Rmult_le_compat_l; lra).
    replace (a * (2 - X)) with (2 * a - a * X) in HaY by ring.
    replace (a * (X - 1)) with (a * X - a) by ring.
    change (exp (l s - row_max S l)) with a in Lo, Hi. apply Rabs_le. split; lra. }
  split; [intros s Hs; apply Hstep, Hs|].
  assert (HSum : Rabs (sum S (exps_fl S l) - mZ S l) <= mA S l).
  { rewrite mZ_eq by exact HS. unfold partition, mA.
    rewrite <- sum_minus. apply (Rle_trans _ _ _ (sum_abs_le _ _)). apply sum_le. intros s Hs.
    unfold shifted. rewrite <- (Ha s Hs). apply Hstep, Hs. }
  assert (He : forall i, (i < S)%nat -> format (exps_fl S l i) /\ 0 <= exps_fl S l i)
    by (intros i Hi; destruct (Hstep i Hi) as [A [B _]]; split; assumption).
  assert (HSp : INR (Nat.pred S) * u < 1).
  { apply (Rle_lt_trans _ (INR S * u)); [apply Rmult_le_compat_r; [lra | apply le_INR; lia] | exact HSu]. }
  destruct (row_sum_fl_gamma emin prec prec_gt_0_ choice S (exps_fl S l) He HSp) as [Lo Hi].
  pose proof (gamma_mono (Nat.pred S) S ltac:(lia) HSu) as Hgm.
  pose proof (gamma_nonneg prec (Nat.pred S) HSp) as Hg0.
  pose proof (sum_nonneg S (exps_fl S l) (fun i Hi => proj2 (He i Hi))) as Hs0.
  apply Rabs_le_inv in HSum.
  unfold mzeta. apply Rabs_le.
  assert (gamma (Nat.pred S) * sum S (exps_fl S l) <= gamma S * (mZ S l + mA S l)) by (apply Rmult_le_compat; lra).
  split; nra.
Qed.

(** |ln Ẑ − ln Z| ≤ −ln(1 − ζ/Z) when |Ẑ − Z| ≤ ζ < Z. *)
Lemma ln_close Zh Z zeta : 0 < Z -> Rabs (Zh - Z) <= zeta -> zeta < Z ->
  Rabs (ln Zh - ln Z) <= - ln (1 - zeta / Z).
Proof.
  intros HZ Hd Hz. apply Rabs_le_inv in Hd.
  assert (Hz0 : 0 <= zeta) by lra.
  set (z := zeta / Z).
  assert (Hz1 : 0 <= z < 1).
  { unfold z. split; [apply Rmult_le_pos; [lra | left; apply Rinv_0_lt_compat; lra]|].
    apply (Rmult_lt_reg_r Z); [lra|]. unfold Rdiv. rewrite Rmult_assoc, Rinv_l, Rmult_1_l, Rmult_1_r by lra. lra. }
  assert (HZh : 0 < Zh) by lra.
  assert (Hq : ln Zh - ln Z = ln (Zh / Z)).
  { unfold Rdiv. rewrite ln_mult, ln_Rinv; [ring | lra | lra | apply Rinv_0_lt_compat; lra]. }
  rewrite Hq.
  assert (Hlo : 1 - z <= Zh / Z).
  { apply (Rmult_le_reg_r Z); [lra|]. unfold z, Rdiv. rewrite Rmult_assoc, Rinv_l, Rmult_1_r by lra.
    replace ((1 - zeta * / Z) * Z) with (Z - zeta) by (field; lra). lra. }
  assert (Hhi : Zh / Z <= / (1 - z)).
  { apply (Rle_trans _ (1 + z)).
    - apply (Rmult_le_reg_r Z); [lra|]. unfold z, Rdiv. rewrite Rmult_assoc, Rinv_l, Rmult_1_r by lra.
      replace ((1 + zeta * / Z) * Z) with (Z + zeta) by (field; lra). lra.
    - apply (Rmult_le_reg_r (1 - z)); [lra|]. rewrite Rinv_l by lra. nra. }
  assert (Hl0 : ln (1 - z) <= 0) by (rewrite <- ln_1; apply ln_le_compat; lra).
  apply Rabs_le. split.
  - apply (Rle_trans _ (ln (1 - z))); [lra | apply ln_le_compat; lra].
  - apply (Rle_trans _ (ln (/ (1 - z)))); [apply ln_le_compat; [unfold Rdiv; apply Rmult_lt_0_compat; [lra | apply Rinv_0_lt_compat; lra] | exact Hhi]|].
    rewrite ln_Rinv by lra. lra.
Qed.

(** MERGE-BND-001, the LSE: for every S ≥ 1 with S·u < 1 and every row of finite partial LSEs
    (floats), wherever [merge_row_error] is finite (ζ < Z), the kernel's LSE is within the
    allowance [attention_merge_exact] evaluates ([lse_allowance] = λ·slack) of the exact
    L = log Σ_s e^{ℓ_s}.
    {transcribes src/attncheck/bounds/attention_merge.hpp merge_row_error #bcd1cc97}
    {transcribes src/attncheck/bounds/attention_merge.hpp attention_merge_exact #c886f763} *)
Theorem merge_fl_lse slack S l :
  1 <= slack -> (0 < S)%nat -> (forall j, (j < S)%nat -> format (l j)) -> INR S * u < 1 -> 6 * u < 1 ->
  mzeta S l < mZ S l ->
  Rabs (merge_lse_fl S l - mL S l) <= merge_lse_allowance slack S l.
Proof.
  intros Hs HS Fl HSu H6u Hfin. pose proof (u_pos prec) as Hu.
  destruct (merge_Z_hat S l HS Fl HSu ltac:(lra)) as [_ HZh].
  set (Zh := row_sum_fl S (exps_fl S l)) in *.
  assert (HZ1 : 1 <= mZ S l) by (rewrite mZ_eq by exact HS; apply partition_ge_1, HS).
  assert (HZh1 : 1 <= Zh)
    by (apply (row_sum_fl_ge_1 emin prec prec_gt_0_ choice exp_fl e_exp e_exp_range exp_fl_format
                 exp_fl_nonneg exp_fl_accurate exp_fl_0 S l HS Fl)).
  assert (FZh : format Zh) by apply row_sum_fl_format, prec_gt_0_.
  pose proof (ln_close Zh (mZ S l) (mzeta S l) ltac:(lra) HZh Hfin) as Hnu. fold (mnu S l) in Hnu.
  assert (HlnZ : ln (mZ S l) = mlnZ S l).
  { unfold mZ. rewrite ln_exp. reflexivity. }
  rewrite HlnZ in Hnu.
  assert (HlnZ0 : 0 <= mlnZ S l) by (rewrite <- HlnZ, <- ln_1; apply ln_le_compat; lra).
  assert (HlnZh0 : 0 <= ln Zh) by (rewrite <- ln_1; apply ln_le_compat; lra).
  pose proof (log_fl_accurate Zh FZh HZh1) as Hlog. rewrite (Rabs_pos_eq (ln Zh) HlnZh0) in Hlog.
  set (lh := log_fl Zh) in *.
  apply Rabs_le_inv in Hnu.
  assert (Hnu0 : 0 <= mnu S l).
  { unfold mnu. assert (ln (1 - mzeta S l / mZ S l) <= 0); [|lra].
    rewrite <- ln_1. apply ln_le_compat; [|].
    - assert (mzeta S l / mZ S l < 1); [|lra].
      apply (Rmult_lt_reg_r (mZ S l)); [lra|]. unfold Rdiv. rewrite Rmult_assoc, Rinv_l, Rmult_1_l, Rmult_1_r by lra. lra.
    - assert (0 <= mzeta S l / mZ S l); [|lra].
      pose proof (Rle_trans _ _ _ (Rabs_pos _) HZh). apply Rmult_le_pos; [lra | left; apply Rinv_0_lt_compat; lra]. }
  assert (Hg : Rabs (lh - mlnZ S l) <= mg S l).
  { unfold mg. apply Rabs_le_inv in Hlog. apply Rabs_le.
    assert (e_log * ln Zh <= e_log * (mlnZ S l + mnu S l)) by (apply Rmult_le_compat_l; lra). split; nra. }
  destruct (row_max_spec S l HS) as [_ [k [Hk Hm]]].
  assert (FM : format (row_max S l)) by (rewrite Hm; apply Fl, Hk).
  assert (Flh : format lh) by (apply log_fl_format; assumption).
  destruct (plus_model emin prec prec_gt_0_ choice (row_max S l) lh FM Flh) as [d [Hd Hp]].
  unfold merge_lse_fl. fold Zh lh. rewrite Hp.
  assert (HL : mL S l = mM S l + mlnZ S l) by (unfold mlnZ; ring).
  rewrite HL. unfold mM.
  replace ((row_max S l + lh) * (1 + d) - (row_max S l + mlnZ S l))
    with ((lh - mlnZ S l) + d * (row_max S l + lh)) by ring.
  assert (Hg6 : u <= gamma 6) by (apply u_le_gamma; [lia | simpl; lra]).
  assert (Hlh : Rabs (row_max S l + lh) <= Rabs (mM S l) + mlnZ S l + mg S l).
  { unfold mM. apply (Rle_trans _ _ _ (Rabs_triang _ _)). apply Rabs_le_inv in Hg.
    assert (Rabs lh <= mlnZ S l + mg S l) by (apply Rabs_le; lra). lra. }
  assert (Hg60 : 0 <= gamma 6 * (Rabs (mM S l) + mlnZ S l + mg S l)).
  { apply Rmult_le_pos; [lra|]. pose proof (Rabs_pos (mM S l)). pose proof (Rle_trans _ _ _ (Rabs_pos _) Hg). lra. }
  assert (Hdl : Rabs (d * (row_max S l + lh)) <= gamma 6 * (Rabs (mM S l) + mlnZ S l + mg S l)).
  { rewrite Rabs_mult. apply Rmult_le_compat; [apply Rabs_pos | apply Rabs_pos | lra | exact Hlh]. }
  unfold merge_lse_allowance, mlambda.
  apply (Rle_trans _ (mg S l + gamma 6 * (Rabs (mM S l) + mlnZ S l + mg S l))).
  - apply (Rle_trans _ _ _ (Rabs_triang _ _)). lra.
  - pose proof (Rle_trans _ _ _ (Rabs_pos _) Hg).
    rewrite <- (Rmult_1_r (_ + _)) at 1. apply Rmult_le_compat_l; lra.
Qed.

(** The weight step as real arithmetic: ŵ = fl(â/Ẑ) with â ∈ [a·c − η, a·X + η], a = wZ,
    X = e^θ(1+e_exp) ≥ 1 ≥ c = e^−θ(1−e_exp) ≥ 0, X + c ≥ 2, |Ẑ − Z| ≤ ζ < Z. *)
Lemma weight_alg (w Z zeta Zh ah X c g2 eta q wf : R) :
  0 <= w -> 0 < Z -> 0 <= zeta -> zeta < Z -> Rabs (Zh - Z) <= zeta ->
  w * Z * c - eta <= ah -> ah <= w * Z * X + eta -> 0 <= ah ->
  0 <= c -> c <= 1 -> 1 <= X -> 2 <= X + c ->
  u <= g2 -> 0 <= eta -> q = ah / Zh -> Rabs (wf - q) <= u * q + eta / 2 ->
  Rabs (wf - w) <= w * (X * (1 + g2) / (1 - zeta / Z) - 1) + eta * (1 + (1 + g2) / (Z - zeta)).
Proof.
  intros Hw HZ Hz0 Hz HZh Hlo Hhi Hah Hc0 Hc1 HX HXc Hg Heta Hq Hwf.
  pose proof (u_pos prec) as Hu. pose proof (u_le_half prec prec_gt_0_) as Hu2.
  apply Rabs_le_inv in HZh. apply Rabs_le_inv in Hwf.
  set (D := Z - zeta). set (E := Z + zeta).
  assert (HD : 0 < D) by (unfold D; lra).
  assert (HZhp : 0 < Zh) by lra.
  assert (Hq0 : 0 <= q) by (rewrite Hq; unfold Rdiv; apply Rmult_le_pos; [lra | left; apply Rinv_0_lt_compat; lra]).
  assert (Hrho : X * (1 + g2) / (1 - zeta / Z) = X * (1 + g2) * Z / D) by (unfold D; field; split; lra).
  rewrite Hrho.
  (* upper: q ≤ (wZX + η)/D *)
  assert (Hqu : q <= (w * Z * X + eta) / D).
  { rewrite Hq. unfold Rdiv. apply (Rle_trans _ (ah * / D)).
    - apply Rmult_le_compat_l; [lra|]. apply Rinv_le_contravar; [exact HD | unfold D; lra].
    - apply Rmult_le_compat_r; [left; apply Rinv_0_lt_compat; lra | lra]. }
  (* lower: q ≥ wZc/E − η/D *)
  assert (Hql : w * Z * c / E - eta / D <= q).
  { rewrite Hq. unfold Rdiv.
    assert (Hwzc : 0 <= w * Z * c) by (apply Rmult_le_pos; [apply Rmult_le_pos; lra | lra]).
    assert (w * Z * c * / E <= w * Z * c * / Zh) by (apply Rmult_le_compat_l; [lra | apply Rinv_le_contravar; [lra | unfold E; lra]]).
    assert (eta * / Zh <= eta * / D) by (apply Rmult_le_compat_l; [lra | apply Rinv_le_contravar; [lra | unfold D; lra]]).
    assert ((w * Z * c - eta) * / Zh <= ah * / Zh) by (apply Rmult_le_compat_r; [left; apply Rinv_0_lt_compat; lra | lra]).
    replace ((w * Z * c - eta) * / Zh) with (w * Z * c * / Zh - eta * / Zh) in * by ring. lra. }
  assert (HE : 0 < E) by (unfold E; lra).
  assert (Hkey : 2 * w <= w * X * (1 + g2) * Z / D + (1 - u) * (w * Z * c / E)).
  { assert (K : 2 * D * E <= X * (1 + g2) * Z * E + (1 - u) * Z * c * D).
    { unfold D, E.
      assert (B1 : 2 <= X * (1 + g2) + (1 - u) * c) by nra.
      assert (B2 : 0 <= X * (1 + g2) - (1 - u) * c) by nra.
      assert (B1' : Z * 2 <= Z * (X * (1 + g2) + (1 - u) * c)) by (apply Rmult_le_compat_l; lra).
      assert (B2' : 0 <= zeta * (X * (1 + g2) - (1 - u) * c)) by (apply Rmult_le_pos; lra).
      assert (B3 : 2 * Z <= X * (1 + g2) * (Z + zeta) + (1 - u) * c * (Z - zeta)) by nra.
      assert (B4 : Z * (2 * Z) <= Z * (X * (1 + g2) * (Z + zeta) + (1 - u) * c * (Z - zeta)))
        by (apply Rmult_le_compat_l; lra).
      assert (0 <= zeta * zeta) by nra. nra. }
    assert (K2 : 2 <= X * (1 + g2) * Z / D + (1 - u) * (Z * c / E)).
    { apply (Rmult_le_reg_r (D * E)); [nra|].
      replace ((X * (1 + g2) * Z / D + (1 - u) * (Z * c / E)) * (D * E))
        with (X * (1 + g2) * Z * E + (1 - u) * Z * c * D) by (field; lra). lra. }
    replace (w * X * (1 + g2) * Z / D + (1 - u) * (w * Z * c / E))
      with (w * (X * (1 + g2) * Z / D + (1 - u) * (Z * c / E))) by (field; lra). nra. }
  assert (HetaD : 0 <= eta / D) by (unfold Rdiv; apply Rmult_le_pos; [lra | left; apply Rinv_0_lt_compat; lra]).
  assert (Hwq : (1 + u) * q <= w * X * (1 + g2) * Z / D + eta * (1 + g2) / D).
  { apply (Rle_trans _ ((1 + u) * ((w * Z * X + eta) / D))); [apply Rmult_le_compat_l; lra|].
    replace ((1 + u) * ((w * Z * X + eta) / D)) with ((1 + u) * (w * Z * X) / D + (1 + u) * eta / D) by (field; lra).
    apply Rplus_le_compat; unfold Rdiv; apply Rmult_le_compat_r; try (left; apply Rinv_0_lt_compat; lra).
    - assert (0 <= w * Z * X) by (apply Rmult_le_pos; [apply Rmult_le_pos|]; lra).
      replace (w * X * (1 + g2) * Z) with ((1 + g2) * (w * Z * X)) by ring. apply Rmult_le_compat_r; lra.
    - rewrite Rmult_comm. apply Rmult_le_compat_l; lra. }
  assert (Hexp : eta * (1 + (1 + g2) / D) = eta + eta * (1 + g2) / D) by (field; lra).
  rewrite Hexp.
  assert (eta * (1 + g2) / D >= eta / D).
  { unfold Rdiv. apply Rle_ge. apply Rmult_le_compat_r; [left; apply Rinv_0_lt_compat; lra | nra]. }
  replace (w * (X * (1 + g2) * Z / D - 1)) with (w * X * (1 + g2) * Z / D - w) by (field; lra).
  apply Rabs_le. split.
  - assert ((1 - u) * (w * Z * c / E - eta / D) <= (1 - u) * q) by (apply Rmult_le_compat_l; lra).
    assert ((1 - u) * (eta / D) <= eta / D) by nra. nra.
  - nra.
Qed.

Lemma fl_abs_err q : Rabs (fl q - q) <= u * Rabs q + eta / 2.
Proof.
  destruct (standard_model emin prec prec_gt_0_ choice q) as [eps [alpha [He [Ha Hq]]]].
  rewrite Hq. replace (q * (1 + eps) + alpha - q) with (q * eps + alpha) by ring.
  apply (Rle_trans _ _ _ (Rabs_triang _ _)). rewrite Rabs_mult.
  assert (Rabs q * Rabs eps <= Rabs q * u) by (apply Rmult_le_compat_l; [apply Rabs_pos | exact He]).
  unfold half_eta in Ha. unfold SoftmaxRounding.eta. lra.
Qed.

(** Step 3, the weights (order (A): normalised first): |ŵ_s − w_s| ≤ w_s ρ_s + η_w. *)
Lemma merge_w_error S l s :
  (0 < S)%nat -> (forall j, (j < S)%nat -> format (l j)) -> INR S * u < 1 -> 4 * u < 1 ->
  mzeta S l < mZ S l -> (s < S)%nat ->
  Rabs (merge_w_fl S l s - mw S l s) <= mw S l s * mrho S l s + mweight_abs S l.
Proof.
  intros HS Fl HSu H4u Hfin Hs. pose proof (u_pos prec) as Hu.
  destruct (merge_Z_hat S l HS Fl HSu H4u) as [_ HZh].
  assert (HZ1 : 1 <= mZ S l) by (rewrite mZ_eq by exact HS; apply partition_ge_1, HS).
  assert (HZhp : 0 < row_sum_fl S (exps_fl S l))
    by (pose proof (row_sum_fl_ge_1 emin prec prec_gt_0_ choice exp_fl e_exp e_exp_range exp_fl_format
                 exp_fl_nonneg exp_fl_accurate exp_fl_0 S l HS Fl); lra).
  assert (Hg4 : u <= gamma 4) by (apply u_le_gamma; [lia | simpl; lra]).
  assert (Hg2 : u <= gamma 2) by (apply u_le_gamma; [lia | simpl; lra]).
  assert (Hth : u * Rabs (l s - row_max S l) <= mtheta S l s).
  { unfold mtheta, mM. unfold Rminus. apply (Rle_trans _ (u * (Rabs (l s) + Rabs (row_max S l)))).
    - apply Rmult_le_compat_l; [lra|]. apply (Rle_trans _ _ _ (Rabs_triang _ _)). rewrite Rabs_Ropp. lra.
    - apply Rmult_le_compat_r; [pose proof (Rabs_pos (l s)); pose proof (Rabs_pos (row_max S l)); lra | exact Hg4]. }
  destruct (exp_step S l s (mtheta S l s) HS Fl Hs Hth) as [F [N [Lo Hi]]].
  assert (Ha : mw S l s * mZ S l = exp (l s - row_max S l)).
  { rewrite mZ_eq by exact HS. unfold mw, p, shifted. pose proof (partition_ge_1 S l HS). field. lra. }
  rewrite <- Ha in Lo, Hi.
  set (th := mtheta S l s) in *.
  assert (Hth0 : 0 <= th) by (apply (Rle_trans _ _ _ (Rmult_le_pos _ _ (Rlt_le _ _ Hu) (Rabs_pos _)) Hth)).
  pose proof (exp_pos th). pose proof (exp_pos (- th)).
  assert (Hcosh : 2 <= exp th + exp (- th)).
  { assert (exp th * exp (- th) = 1) by (rewrite <- exp_plus; replace (th + - th) with 0 by ring; apply exp_0).
    pose proof (pow2_ge_0 (exp th - exp (- th))). nra. }
  assert (He1 : exp (- th) <= 1) by (rewrite <- exp_0; apply exp_le_compat; lra).
  assert (He2 : 1 <= exp th) by (rewrite <- exp_0; apply exp_le_compat; lra).
  assert (Hw0 : 0 <= mw S l s) by apply p_nonneg.
  assert (Hz0 : 0 <= mzeta S l) by (apply (Rle_trans _ _ _ (Rabs_pos _) HZh)).
  pose proof (weight_alg (mw S l s) (mZ S l) (mzeta S l) (row_sum_fl S (exps_fl S l)) (exps_fl S l s)
                (exp th * (1 + e_exp)) (exp (- th) * (1 - e_exp)) (gamma 2) eta
                (exps_fl S l s / row_sum_fl S (exps_fl S l)) (merge_w_fl S l s)
                Hw0 ltac:(lra) Hz0 Hfin HZh Lo Hi N ltac:(nra) ltac:(nra) ltac:(nra) ltac:(nra) Hg2
                ltac:(unfold SoftmaxRounding.eta; left; apply bpow_gt_0) eq_refl) as Hw.
  assert (Hq0 : 0 <= exps_fl S l s / row_sum_fl S (exps_fl S l))
    by (unfold Rdiv; apply Rmult_le_pos; [lra | left; apply Rinv_0_lt_compat; lra]).
  assert (Hfl : Rabs (merge_w_fl S l s - exps_fl S l s / row_sum_fl S (exps_fl S l))
                <= u * (exps_fl S l s / row_sum_fl S (exps_fl S l)) + eta / 2).
  { pose proof (fl_abs_err (exps_fl S l s / row_sum_fl S (exps_fl S l))) as E.
    rewrite (Rabs_pos_eq _ Hq0) in E. exact E. }
  specialize (Hw Hfl).
  apply (Rle_trans _ _ _ Hw). unfold mweight_abs. apply Rplus_le_compat_r.
  apply Rmult_le_compat_l; [exact Hw0|]. unfold mrho. apply (Rle_trans _ (mrho_a S l s)); [|apply Rmax_l].
  unfold mrho_a, mr. fold th. apply Req_le. field. split; lra.
Qed.

(** MERGE-BND-001, the output: for every S ≥ 1 with (S+1)·u < 1 and every row of finite
    partial LSEs and partial outputs (floats), wherever [merge_row_error] is finite (ζ < Z), each
    merged output element is within the allowance [attention_merge_exact] evaluates
    ([first + γ_{S+1}·second + (S+1)η], widened by [slack]) of the exact Σ_s w_s O_sc.
    {transcribes src/attncheck/bounds/attention_merge.hpp merge_row_error #bcd1cc97}
    {transcribes src/attncheck/bounds/attention_merge.hpp attention_merge_exact #c886f763} *)
Theorem merge_fl_output slack S l O :
  1 <= slack -> (0 < S)%nat -> (forall j, (j < S)%nat -> format (l j)) -> INR (S + 1) * u < 1 -> 6 * u < 1 ->
  mzeta S l < mZ S l ->
  Rabs (merge_o_fl S l O - sum S (fun s => mw S l s * O s)) <= merge_o_allowance slack S l O.
Proof.
  intros Hs HS Fl HS1u H6u Hfin. pose proof (u_pos prec) as Hu.
  rewrite plus_INR in HS1u. simpl INR in HS1u at 2.
  assert (HSu : INR S * u < 1) by lra.
  assert (HS1u' : INR (S + 1) * u < 1) by (rewrite plus_INR; simpl; lra).
  set (wf := merge_w_fl S l).
  pose proof (dot_fl_error_gamma emin prec prec_gt_0_ choice S wf O HSu) as Hdot.
  change (dot_fl emin prec choice S wf O) with (merge_o_fl S l O) in Hdot. change (INR S * u / (1 - INR S * u)) with (gamma S) in Hdot.
  replace (INR S * (2 * half_eta emin)) with (INR S * eta) in Hdot by (unfold half_eta, SoftmaxRounding.eta; field).
  assert (Hw : forall s, (s < S)%nat -> Rabs (wf s - mw S l s) <= mw S l s * mrho S l s + mweight_abs S l)
    by (intros; apply merge_w_error; auto; lra).
  assert (Hw0 : forall s, 0 <= mw S l s) by (intros; apply p_nonneg).
  assert (Hsec : sum S (fun t => Rabs (wf t * O t)) <= msecond S l O).
  { apply sum_le. intros s Hs'. rewrite Rabs_mult. apply Rmult_le_compat_r; [apply Rabs_pos|].
    pose proof (Hw s Hs'). pose proof (Hw0 s).
    replace (wf s) with (mw S l s + (wf s - mw S l s)) by ring.
    apply (Rle_trans _ _ _ (Rabs_triang _ _)). rewrite (Rabs_pos_eq (mw S l s)) by lra. lra. }
  assert (Hfirst : Rabs (sum S (fun t => wf t * O t) - sum S (fun s => mw S l s * O s)) <= mfirst S l O).
  { rewrite <- sum_minus. apply (Rle_trans _ _ _ (sum_abs_le _ _)). apply sum_le. intros s Hs'.
    replace (wf s * O s - mw S l s * O s) with ((wf s - mw S l s) * O s) by ring.
    rewrite Rabs_mult. apply Rmult_le_compat_r; [apply Rabs_pos | apply Hw, Hs']. }
  pose proof (gamma_mono S (S + 1) ltac:(lia) HS1u') as Hgm.
  pose proof (gamma_nonneg prec S HSu) as Hg0.
  assert (Hsec0 : 0 <= sum S (fun t => Rabs (wf t * O t))) by (apply sum_nonneg; intros; apply Rabs_pos).
  assert (He : 0 < eta) by (unfold SoftmaxRounding.eta; apply bpow_gt_0).
  assert (HSe : INR S * eta <= INR (S + 1) * eta) by (apply Rmult_le_compat_r; [lra | apply le_INR; lia]).
  assert (Hgs : gamma S * sum S (fun t => Rabs (wf t * O t)) <= gamma (S + 1) * msecond S l O)
    by (apply Rmult_le_compat; lra).
  assert (HB : Rabs (merge_o_fl S l O - sum S (fun s => mw S l s * O s))
               <= mfirst S l O + gamma (S + 1) * msecond S l O + INR (S + 1) * eta).
  { replace (merge_o_fl S l O - sum S (fun s => mw S l s * O s))
      with ((merge_o_fl S l O - sum S (fun t => wf t * O t)) + (sum S (fun t => wf t * O t) - sum S (fun s => mw S l s * O s)))
      by ring.
    apply (Rle_trans _ _ _ (Rabs_triang _ _)). lra. }
  unfold merge_o_allowance. apply (Rle_trans _ _ _ HB).
  pose proof (Rle_trans _ _ _ (Rabs_pos _) HB).
  rewrite <- (Rmult_1_r (_ + _ + _)) at 1. apply Rmult_le_compat_l; lra.
Qed.
End Merge.
