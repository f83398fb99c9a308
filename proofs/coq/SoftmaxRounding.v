(** * The softmax kernel's allowances in binary floating point (softmax-kernel-v1, issue 47) *)
(** The theorems behind what [bounds::softmax_bound], [bounds::log_softmax_bound] and
    [bounds::normalisation_bound] (src/attncheck/bounds/softmax.hpp) evaluate, for the operation
    order of the kernel templates (src/attncheck/kernels/softmax.hpp, log_softmax.hpp):
    m = row_max x (exact: a comparison selects), t̂_j = fl(x_j − m), ê_j = exp(t̂_j) by the libm,
    ŝ = ((0 + ê_0) + ê_1) + … (row_sum), ŷ_i = fl(ê_i / ŝ), and for log-softmax
    ŷ_i = fl(t̂_i − log(ŝ)). The arithmetic is any binary format with gradual underflow (Flocq's
    FLT: precision [prec], smallest exponent [emin] ≤ 0) and round to nearest with any tie rule
    ([choice]), for every row length n; for mixed precision each output is rounded once more, to
    nearest in a storage format. The loops are folds over the indices, as in SoftmaxKernelLift.v.
    Proved: SM-BND-001 ([softmax_fl_element_bound], [_mixed]), SM-BND-002 ([softmax_fl_range]),
    SM-BND-003 ([log_softmax_fl_bound]), SM-INV-001 ([softmax_fl_sum_bound]), SM-INV-002
    ([softmax_fl_shift]), SM-INV-003 ([softmax_fl_single]), SM-INV-004 ([softmax_fl_constant]),
    SM-MON-001 ([softmax_fl_monotone]); on the way, the enclosure of a recursive sum of
    non-negative floats, [(1−u)^(n−1) Σ, (1+u)^(n−1) Σ] ([row_sum_fl_enclosure]), and its γ form
    [(1−γ_{n−1}) Σ, (1+γ_{n−1}) Σ] that the C++ evaluates ([row_sum_fl_gamma]).
    What Coq cannot see is a hypothesis of a Section, never an Axiom: the libm's exp returns a
    non-negative float within e_exp·exp(t) + η of exp(t) for every float t ≤ 0 ([exp_fl_format],
    [exp_fl_nonneg], [exp_fl_accurate]), where needed exp(0) = 1 ([exp_fl_0]) and exp
    non-decreasing ([exp_fl_monotone]), and log returns a float within e_log·|log s| of log s for
    every float s ≥ 1 ([log_fl_format], [log_fl_accurate]). exp ≥ 0, exp(0) = 1 and monotonicity
    are among the libm axioms `attncheck bmc` validates at every input of f16, bf16 and f32;
    e_exp and e_log are the libm's documented maximum errors ([scalar_traits::exp_rel],
    [log_rel]: glibc's manual), which nothing here measures.
    Gaps to the C++, outside Coq: overflow (FLT has no largest exponent; after max subtraction
    every value is at most n(1+e_exp) + nη), flush to zero (Subnormals::flush), and the
    evaluation of the bounds themselves in long double from oracle values rounded to long double,
    which [evaluation_slack] widens by 2^-8 (error_model.hpp); here [slack] is any number ≥ 1 and
    the bounds are evaluated exactly. *)
From Coq Require Import Reals Lia Lra Psatz List.
From Flocq Require Import Core.Core Relative.
From Attncheck Require Import Sums ScoresRounding.
Import ListNotations.
Open Scope R_scope.

(** exp is monotone (Coq's reals state it strictly). *)
Lemma exp_le_compat a b : a <= b -> exp a <= exp b.
Proof. intros [H|H]; [left; apply exp_increasing, H | subst; lra]. Qed.

(** (1 − u)^k ≥ 1 − k·u for 0 ≤ u ≤ 1 (Bernoulli). *)
Lemma pow_1_minus_ge u k : 0 <= u <= 1 -> 1 - INR k * u <= (1 - u) ^ k.
Proof.
  intros Hu. induction k as [|k IH]; [simpl; lra|].
  rewrite S_INR. simpl. pose proof (pos_INR k).
  assert (0 <= (1 - u) ^ k) by (apply pow_le; lra). nra.
Qed.

Lemma sum_abs_le n f : Rabs (sum n f) <= sum n (fun i => Rabs (f i)).
Proof.
  induction n as [|n IH]; simpl; [rewrite Rabs_R0; lra|].
  apply (Rle_trans _ _ _ (Rabs_triang _ _)). lra.
Qed.

(** The integers 0, 1, …, 2^prec are floats of every FLT format with emin ≤ 0. *)
Lemma format_nat emin prec (Hp : Prec_gt_0 prec) (He : (emin <= 0)%Z) k :
  INR k <= bpow radix2 prec -> generic_format radix2 (FLT_exp emin prec) (INR k).
Proof.
  intros Hk. unfold Prec_gt_0 in Hp.
  destruct (Rle_lt_or_eq_dec _ _ Hk) as [Hlt|Heq].
  - apply generic_format_FLT. apply (FLT_spec _ _ _ _ (Float radix2 (Z.of_nat k) 0)).
    + unfold F2R. simpl. rewrite Rmult_1_r. apply INR_IZR_INZ.
    + simpl. rewrite Z.abs_eq by lia. apply lt_IZR. rewrite <- INR_IZR_INZ.
      change 2%Z with (radix_val radix2). rewrite IZR_Zpower by lia. exact Hlt.
    + simpl. exact He.
  - rewrite Heq. apply generic_format_bpow. unfold FLT_exp. lia.
Qed.

Lemma pow_le_1 a k : 0 <= a <= 1 -> a ^ k <= 1.
Proof.
  intros Ha. induction k as [|k IH]; simpl; [lra|].
  assert (0 <= a ^ k) by (apply pow_le; lra). nra.
Qed.

Section RecursiveSum.
Variable emin prec : Z.
Context (prec_gt_0_ : Prec_gt_0 prec).
Variable choice : Z -> bool.
Notation format := (generic_format radix2 (FLT_exp emin prec)).
Notation fl := (round radix2 (FLT_exp emin prec) (Znearest choice)).
Notation u := (ScoresRounding.u prec).

Lemma valid_fexp : Valid_exp (FLT_exp emin prec).
Proof. apply FLT_exp_valid. exact prec_gt_0_. Qed.

Lemma fl_format x : format (fl x).
Proof. apply generic_format_round; [apply valid_fexp | apply valid_rnd_N]. Qed.

Lemma fl_le x y : x <= y -> fl x <= fl y.
Proof. apply round_le; [apply valid_fexp | apply valid_rnd_N]. Qed.

Lemma fl_id x : format x -> fl x = x.
Proof. apply round_generic, valid_rnd_N. Qed.

Lemma u_le_half : u <= / 2.
Proof.
  unfold ScoresRounding.u. unfold Prec_gt_0 in prec_gt_0_.
  assert (bpow radix2 (- prec + 1) <= 1) by (change 1 with (bpow radix2 0); apply bpow_le; lia).
  lra.
Qed.

(** The kernel's [row_sum]: [T s = lit<T>(0); for (i = 0; i < n; ++i) s = s + e[i];], the loop
    as a fold over the indices.  {transcribes src/attncheck/kernels/softmax.hpp row_sum #624314dc} *)
Definition row_sum_fl (n : nat) (e : nat -> R) : R :=
  fold_left (fun s i => fl (s + e i)) (seq 0 n) 0.

Lemma row_sum_fl_S n e : row_sum_fl (S n) e = fl (row_sum_fl n e + e n).
Proof. unfold row_sum_fl. rewrite seq_S, fold_left_app. reflexivity. Qed.

Lemma row_sum_fl_format n e : format (row_sum_fl n e).
Proof.
  destruct n as [|n]; [apply generic_format_0|]. rewrite row_sum_fl_S. apply fl_format.
Qed.

(** A recursive sum of non-negative floats is non-negative and at least each of its terms. *)
Theorem row_sum_fl_ge_terms n e :
  (forall i, (i < n)%nat -> format (e i) /\ 0 <= e i) ->
  0 <= row_sum_fl n e /\ forall i, (i < n)%nat -> e i <= row_sum_fl n e.
Proof.
  induction n as [|n IH]; intros He.
  - split; [unfold row_sum_fl; simpl; lra | intros; lia].
  - destruct IH as [H0 Hi]; [intros; apply He; lia|].
    destruct (He n ltac:(lia)) as [Fn Pn].
    pose proof (row_sum_fl_format n e) as Fs.
    assert (Hs : row_sum_fl n e <= row_sum_fl (S n) e).
    { rewrite row_sum_fl_S. rewrite <- (fl_id _ Fs) at 1. apply fl_le. lra. }
    assert (Hn : e n <= row_sum_fl (S n) e).
    { rewrite row_sum_fl_S. rewrite <- (fl_id _ Fn) at 1. apply fl_le. lra. }
    split; [lra|]. intros i Hi'. destruct (Nat.eq_dec i n) as [->|Hne]; [exact Hn|].
    specialize (Hi i ltac:(lia)). lra.
Qed.

(** The sharper enclosure of a recursive sum of non-negative floats (proofs/bounds/README.md):
    each term passes through at most n − 1 roundings (1 + δ), |δ| ≤ u, so
    (1 − u)^(n−1) Σ e ≤ ŝ ≤ (1 + u)^(n−1) Σ e, for every n and every u: it never degenerates,
    where 1 − γ_{n−1} reaches 0 at (n−1)u = 1/2. Additions of floats are exact in the subnormal
    range, so no η enters. The C++ bounds evaluate these factors: [den_lo], [den_hi] of
    {transcribes src/attncheck/bounds/softmax.hpp softmax_bound_with #c25b5ee4} and the
    normalisation's {transcribes src/attncheck/bounds/softmax.hpp normalisation_bound #841649c4} *)
Theorem row_sum_fl_enclosure n e :
  (forall i, (i < n)%nat -> format (e i) /\ 0 <= e i) ->
  (1 - u) ^ Nat.pred n * sum n e <= row_sum_fl n e <= (1 + u) ^ Nat.pred n * sum n e.
Proof.
  pose proof (u_pos prec) as Hu. pose proof u_le_half as Hu2.
  induction n as [|n IH]; intros He.
  - unfold row_sum_fl. simpl. lra.
  - destruct (He n ltac:(lia)) as [Fn Pn].
    assert (He' : forall i, (i < n)%nat -> format (e i) /\ 0 <= e i) by (intros; apply He; lia).
    destruct (IH He') as [Lo Hi].
    pose proof (sum_nonneg n e (fun i Hi => proj2 (He' i Hi))) as HS.
    rewrite row_sum_fl_S. change (sum (S n) e) with (sum n e + e n).
    destruct n as [|k].
    + unfold row_sum_fl. simpl. rewrite Rplus_0_l, fl_id by exact Fn. lra.
    + destruct (plus_model emin prec prec_gt_0_ choice _ _ (row_sum_fl_format (S k) e) Fn)
        as [d [Hd ->]].
      apply Rabs_le_inv in Hd. simpl Nat.pred in *.
      set (s := row_sum_fl (S k) e) in *. set (S0 := sum (S k) e) in *. set (x := e (S k)) in *.
      assert (Hs0 : 0 <= s) by (pose proof (pow_le (1 - u) k ltac:(lra)); nra).
      assert (Hp1 : 1 <= (1 + u) ^ k) by (apply pow_R1_Rle; lra).
      assert (Hm1 : (1 - u) ^ k <= 1) by (apply pow_le_1; lra).
      assert (Hm0 : 0 <= (1 - u) ^ k) by (apply pow_le; lra).
      change ((1 - u) ^ S k) with ((1 - u) * (1 - u) ^ k).
      change ((1 + u) ^ S k) with ((1 + u) * (1 + u) ^ k).
      assert (Hx1 : (1 - u) ^ k * x <= x) by nra.
      assert (Hx2 : x <= (1 + u) ^ k * x) by nra.
      split.
      * apply (Rle_trans _ (((1 - u) ^ k * S0 + x) * (1 - u))).
        -- replace ((1 - u) * (1 - u) ^ k * (S0 + x)) with (((1 - u) ^ k * S0 + (1 - u) ^ k * x) * (1 - u)) by ring.
           apply Rmult_le_compat_r; lra.
        -- apply (Rle_trans _ ((s + x) * (1 - u))); [apply Rmult_le_compat_r; lra | nra].
      * apply (Rle_trans _ ((s + x) * (1 + u))); [nra|].
        apply (Rle_trans _ (((1 + u) ^ k * S0 + x) * (1 + u))); [apply Rmult_le_compat_r; lra|].
        replace ((1 + u) * (1 + u) ^ k * (S0 + x)) with (((1 + u) ^ k * S0 + (1 + u) ^ k * x) * (1 + u)) by ring.
        apply Rmult_le_compat_r; lra.
Qed.

(** γ_k = k·u/(1 − k·u) (Higham's Lemma 3.1), finite while k·u < 1. *)
Definition gamma (k : nat) : R := INR k * u / (1 - INR k * u).

Lemma gamma_nonneg k : INR k * u < 1 -> 0 <= gamma k.
Proof.
  intros H. pose proof (u_pos prec). pose proof (pos_INR k). unfold gamma.
  apply Rmult_le_pos; [nra | left; apply Rinv_0_lt_compat; lra].
Qed.

(** The enclosure in the γ form the C++ evaluates (Higham (4.4) for non-negative terms):
    (1 − γ_{n−1}) Σ e ≤ ŝ ≤ (1 + γ_{n−1}) Σ e while (n − 1)u < 1, γ as [gamma] computes it
    {transcribes src/attncheck/bounds/error_model.hpp gamma #02647150}. (It follows from the
    sharper [row_sum_fl_enclosure]: (1 + u)^k ≤ 1 + γ_k and (1 − u)^k ≥ 1 − k·u ≥ 1 − γ_k.) *)
Corollary row_sum_fl_gamma n e :
  (forall i, (i < n)%nat -> format (e i) /\ 0 <= e i) -> INR (Nat.pred n) * u < 1 ->
  (1 - gamma (Nat.pred n)) * sum n e <= row_sum_fl n e <= (1 + gamma (Nat.pred n)) * sum n e.
Proof.
  intros He Hk. pose proof (u_pos prec) as Hu. pose proof u_le_half.
  pose proof (sum_nonneg n e (fun i Hi => proj2 (He i Hi))) as HS.
  destruct (row_sum_fl_enclosure n e He) as [Lo Hi].
  pose proof (pow_sub_1_le_gamma prec (Nat.pred n) Hk) as Hg. fold (gamma (Nat.pred n)) in Hg.
  pose proof (pow_1_minus_ge u (Nat.pred n) ltac:(lra)) as Hb.
  assert (Hg1 : INR (Nat.pred n) * u <= gamma (Nat.pred n)).
  { pose proof (pos_INR (Nat.pred n)).
    apply (Rmult_le_reg_r (1 - INR (Nat.pred n) * u)); [lra|].
    replace (gamma (Nat.pred n) * (1 - INR (Nat.pred n) * u)) with (INR (Nat.pred n) * u)
      by (unfold gamma; field; lra).
    assert (0 <= INR (Nat.pred n) * u) by (apply Rmult_le_pos; lra). nra. }
  split; nra.
Qed.
End RecursiveSum.

(** ** The kernel's row maximum: an exact selection, the largest element. *)
Section RowMax.
(** [max_step]: [return select(xi > m, xi, m);] (the comparison is exact)
    {transcribes src/attncheck/kernels/softmax.hpp max_step #cf0326d3} *)
Definition max_step (m xi : R) : R := if Rlt_dec m xi then xi else m.

(** [row_max]: [T m = x[0]; for (i = 1; i < n; ++i) m = max_step(m, x[i]);]
    {transcribes src/attncheck/kernels/softmax.hpp row_max #657cd5f9} *)
Definition row_max (n : nat) (x : nat -> R) : R :=
  fold_left (fun m i => max_step m (x i)) (seq 1 (Nat.pred n)) (x O).

Lemma row_max_fold k (x : nat -> R) m0 :
  let r := fold_left (fun m i => max_step m (x i)) (seq 1 k) m0 in
  m0 <= r /\ (forall i, (1 <= i <= k)%nat -> x i <= r) /\
  (r = m0 \/ exists i, (1 <= i <= k)%nat /\ r = x i).
Proof.
  cbv zeta. induction k as [|k IH].
  - simpl. split; [lra|]. split; [intros; lia | left; reflexivity].
  - rewrite seq_S, fold_left_app. cbn [fold_left]. replace (1 + k)%nat with (S k) by lia.
    set (r := fold_left (fun m i => max_step m (x i)) (seq 1 k) m0) in *.
    destruct IH as [H0 [Hle Heq]]. unfold max_step.
    destruct (Rlt_dec r (x (S k))) as [Hlt|Hge].
    + split; [lra|]. split.
      * intros i Hi. destruct (Nat.eq_dec i (S k)) as [->|Hne]; [lra|].
        specialize (Hle i ltac:(lia)). lra.
      * right. exists (S k). split; [lia | reflexivity].
    + split; [lra|]. split.
      * intros i Hi. destruct (Nat.eq_dec i (S k)) as [->|Hne]; [lra|]. apply Hle. lia.
      * destruct Heq as [Heq|[i [Hi Heq]]]; [left; exact Heq | right; exists i; split; [lia | exact Heq]].
Qed.

(** The row maximum is at least every element and is one of them. *)
Lemma row_max_spec n x :
  (0 < n)%nat ->
  (forall i, (i < n)%nat -> x i <= row_max n x) /\ exists k, (k < n)%nat /\ row_max n x = x k.
Proof.
  intros Hn. unfold row_max. destruct (row_max_fold (Nat.pred n) x (x O)) as [H0 [Hle Heq]].
  split.
  - intros i Hi. destruct i as [|i]; [exact H0 | apply Hle; lia].
  - destruct Heq as [Heq|[i [Hi Heq]]]; [exists O; split; [lia | exact Heq] | exists i; split; [lia | exact Heq]].
Qed.
End RowMax.

(** ** SM-BND-001 *)
Section Softmax.
Variable emin prec : Z.
Context (prec_gt_0_ : Prec_gt_0 prec).
Variable choice : Z -> bool.
Notation format := (generic_format radix2 (FLT_exp emin prec)).
Notation fl := (round radix2 (FLT_exp emin prec) (Znearest choice)).
Notation u := (ScoresRounding.u prec).
Notation row_sum_fl := (row_sum_fl emin prec choice).
(** 1 is a number of the format (every IEEE format has emin ≤ 0). *)
Hypothesis emin_le_0 : (emin <= 0)%Z.
(** η: the subnormal spacing of the format ([Model::eta], its [denorm_min]). *)
Definition eta := bpow radix2 emin.

(** The libm's exp at the format: abstract. What the bound assumes of it, and no more: for a
    float t ≤ 0 (every argument after max subtraction) it returns a float ≥ 0 within
    e_exp·exp(t) + η of exp(t) ([Model::exp_rel], the libm's documented maximum error). *)
Variable exp_fl : R -> R.
Variable e_exp : R.
Hypothesis e_exp_range : 0 <= e_exp <= 1.
Hypothesis exp_fl_format : forall t, format t -> t <= 0 -> format (exp_fl t).
Hypothesis exp_fl_nonneg : forall t, format t -> t <= 0 -> 0 <= exp_fl t.
Hypothesis exp_fl_accurate :
  forall t, format t -> t <= 0 -> Rabs (exp_fl t - exp t) <= e_exp * exp t + eta.

(** The kernel, src/attncheck/kernels/softmax.hpp: [shifted_exp_step] is [return exp(T(xi - m));]
    {transcribes src/attncheck/kernels/softmax.hpp shifted_exp_step #ebc3c31c}, [normalise_row] is
    [s = row_sum(e, n); for (i = 0; i < n; ++i) e[i] = e[i] / s;]
    {transcribes src/attncheck/kernels/softmax.hpp normalise_row #95a5d558}, and [softmax] is
    [m = row_max(x, n); y[i] = shifted_exp_step(x[i], m); normalise_row(y, n);]
    {transcribes src/attncheck/kernels/softmax.hpp softmax #ca3d64df} *)
Definition exps_fl (n : nat) (x : nat -> R) (j : nat) : R := exp_fl (fl (x j - row_max n x)).
Definition softmax_fl (n : nat) (x : nat -> R) (i : nat) : R :=
  fl (exps_fl n x i / row_sum_fl n (exps_fl n x)).

(** The exact row, as the oracle gives it ([oracle::SoftmaxRow]): p = softmax(x), logp = log p,
    gap_j = max x − x_j. *)
Definition shifted (n : nat) (x : nat -> R) (j : nat) : R := x j - row_max n x.
Definition partition (n : nat) (x : nat -> R) : R := sum n (fun j => exp (shifted n x j)).
Definition p (n : nat) (x : nat -> R) (j : nat) : R := exp (shifted n x j) / partition n x.
Definition logp (n : nat) (x : nat -> R) (j : nat) : R := ln (p n x j).
Definition gap (n : nat) (x : nat -> R) (j : nat) : R := row_max n x - x j.

(** The bound, as [detail::softmax_bound_with] evaluates it with the argument error of
    [softmax_bound] (a_j = u·gap_j), for a model [md] with [md.u] = u, [md.eta] = η,
    [md.exp_rel] = e_exp ([detail::plain_model]
    {transcribes src/attncheck/bounds/error_model.hpp plain_model #ef2eab11}), and for mixed
    precision ([md.mixed()]) the storage format's [out_u], [out_eta]; [slack] stands for
    [evaluation_slack]. The computed sum's range is the enclosure [row_sum_fl_enclosure]:
    (1 − u)^(n−1) and (1 + u)^(n−1) times [sum_lo], [sum_hi], finite and, below, positive at every
    n (where 1 ± γ_{n−1} had no finite value from (n−1)u = 1). A non-positive [den_lo] makes [hi]
    infinite and so [b.hi] = 1. Each definition below is one line of the C++, in its order.
    {transcribes src/attncheck/bounds/softmax.hpp softmax_bound_with #c25b5ee4}
    {transcribes src/attncheck/bounds/softmax.hpp softmax_bound #cf8019de} *)
Section Bound.
Variable mixed : bool.
Variable out_u out_eta slack : R.
Variable n : nat.
Variable x : nat -> R.
Definition arg_err (j : nat) : R := u * gap n x j.
Definition wl : R := sum n (fun j => exp (logp n x j - arg_err j)).
Definition wu : R := sum n (fun j => exp (logp n x j + arg_err j)).
Definition neta : R := INR n * eta.
Definition sum_lo : R := Rmax 0 ((1 - e_exp) * wl - neta).
Definition sum_hi : R := (1 + e_exp) * wu + neta.
Definition den_lo : R := (1 - u) ^ Nat.pred n * sum_lo.
Definition den_hi : R := (1 + u) ^ Nat.pred n * sum_hi.
Definition num_hi (i : nat) : R := (exp (logp n x i + arg_err i) * (1 + e_exp) + eta) * (1 + u).
Definition num_lo (i : nat) : R := Rmax 0 ((exp (logp n x i - arg_err i) * (1 - e_exp) - eta) * (1 - u)).
Definition hi (i : nat) : R := num_hi i / den_lo + eta.
Definition lo (i : nat) : R := Rmax 0 (num_lo i / den_hi - eta).
(** [Model::round_out] {transcribes src/attncheck/bounds/error_model.hpp round_out #7eded700} *)
Definition round_out (y_abs B : R) : R := if mixed then B + out_u * (y_abs + B) + out_eta else B.
Definition hi_out (i : nat) : R := if mixed then hi i * (1 + out_u) + out_eta else hi i.
Definition lo_out (i : nat) : R := if mixed then Rmax 0 (lo i * (1 - out_u) - out_eta) else lo i.
Definition bound_hi (i : nat) : R :=
  if Rlt_dec 0 den_lo then Rmin 1 (p n x i + Rmax 0 (hi_out i - p n x i) * slack) else 1.
Definition bound_lo (i : nat) : R := Rmax 0 (p n x i - Rmax 0 (p n x i - lo_out i) * slack).
End Bound.

(** *** The proof, step by step (proofs/bounds/softmax.md) *)
Lemma eta_pos : 0 < eta.
Proof. apply bpow_gt_0. Qed.

Lemma half_eta_le_eta : half_eta emin <= eta.
Proof. unfold half_eta, eta. pose proof (bpow_gt_0 radix2 emin). lra. Qed.

Lemma format_1 : format 1.
Proof.
  change 1 with (bpow radix2 0). apply generic_format_bpow.
  unfold FLT_exp. unfold Prec_gt_0 in prec_gt_0_. lia.
Qed.

(** Step 1, subtraction: t̂_j = fl(x_j − m) is a float ≤ 0 within u·gap_j of t_j = x_j − m. *)
Lemma sub_max_spec n x j :
  format (x j) -> format (row_max n x) -> x j <= row_max n x ->
  format (fl (x j - row_max n x)) /\ fl (x j - row_max n x) <= 0 /\
  Rabs (fl (x j - row_max n x) - shifted n x j) <= u * gap n x j.
Proof.
  intros Fx Fm Hle. split; [apply (fl_format emin prec prec_gt_0_ choice)|]. split.
  - rewrite <- (round_0 radix2 (FLT_exp emin prec) (Znearest choice)).
    apply (fl_le emin prec prec_gt_0_ choice); lra.
  - destruct (plus_model emin prec prec_gt_0_ choice (x j) (- row_max n x) Fx
                (generic_format_opp _ _ _ Fm)) as [d [Hd Hfl]].
    assert (E : fl (x j - row_max n x) - shifted n x j = (x j - row_max n x) * d).
    { unfold shifted, Rminus. rewrite Hfl. ring. }
    rewrite E. unfold gap. rewrite Rabs_mult, Rabs_left1 by lra.
    replace (- (x j - row_max n x)) with (row_max n x - x j) by ring. rewrite Rmult_comm.
    apply Rmult_le_compat_r; [lra | exact Hd].
Qed.

Lemma partition_ge_1 n x : (0 < n)%nat -> 1 <= partition n x.
Proof.
  intros Hn. destruct (row_max_spec n x Hn) as [_ [k [Hk Hm]]].
  unfold partition. replace 1 with (exp (shifted n x k)).
  - apply (term_le_sum n (fun j => exp (shifted n x j)) k); [intros; left; apply exp_pos | exact Hk].
  - unfold shifted. rewrite Hm. replace (x k - x k) with 0 by ring. apply exp_0.
Qed.

(** The C++ evaluates p_j e^{±a_j} as exp(log p_j ± a_j): the same number. *)
Lemma exp_logp n x j a : (0 < n)%nat -> exp (logp n x j + a) = exp (shifted n x j + a) / partition n x.
Proof.
  intros Hn. pose proof (partition_ge_1 n x Hn). unfold logp, p.
  rewrite exp_plus, exp_ln by (apply Rdiv_lt_0_compat; [apply exp_pos | lra]).
  rewrite exp_plus. field. lra.
Qed.

(** Step 2, exp: with S = Σ e^{t_j} ≥ 1, E±_j = exp(log p_j ± a_j) (the C++ terms),
    S·((1 − e_exp)E−_j − η) ≤ ê_j ≤ S·((1 + e_exp)E+_j + η), and ê_j is a float ≥ 0. *)
Lemma exps_spec n x j :
  (0 < n)%nat -> (forall i, (i < n)%nat -> format (x i)) -> (j < n)%nat ->
  format (exps_fl n x j) /\ 0 <= exps_fl n x j /\
  partition n x * ((1 - e_exp) * exp (logp n x j - u * gap n x j) - eta) <= exps_fl n x j /\
  exps_fl n x j <= partition n x * ((1 + e_exp) * exp (logp n x j + u * gap n x j) + eta).
Proof.
  intros Hn Fx Hj. destruct (row_max_spec n x Hn) as [Hmax [k [Hk Hm]]].
  assert (Fm : format (row_max n x)) by (rewrite Hm; apply Fx, Hk).
  destruct (sub_max_spec n x j (Fx j Hj) Fm (Hmax j Hj)) as [Ft [Ht0 Ht]].
  unfold exps_fl. set (th := fl (x j - row_max n x)) in *.
  pose proof (exp_fl_accurate th Ft Ht0) as Hacc. apply Rabs_le_inv in Hacc.
  pose proof (partition_ge_1 n x Hn) as HS. apply Rabs_le_inv in Ht.
  assert (Elo : exp (shifted n x j - u * gap n x j) <= exp th) by (apply exp_le_compat; lra).
  assert (Ehi : exp th <= exp (shifted n x j + u * gap n x j)) by (apply exp_le_compat; lra).
  assert (E1 : exp (logp n x j - u * gap n x j) = exp (shifted n x j - u * gap n x j) / partition n x).
  { replace (logp n x j - u * gap n x j) with (logp n x j + - (u * gap n x j)) by ring.
    rewrite (exp_logp n x j _ Hn). reflexivity. }
  rewrite E1, (exp_logp n x j _ Hn).
  set (S := partition n x) in *. pose proof eta_pos. pose proof (exp_pos th).
  replace (S * ((1 - e_exp) * (exp (shifted n x j - u * gap n x j) / S) - eta))
    with ((1 - e_exp) * exp (shifted n x j - u * gap n x j) - S * eta) by (field; lra).
  replace (S * ((1 + e_exp) * (exp (shifted n x j + u * gap n x j) / S) + eta))
    with ((1 + e_exp) * exp (shifted n x j + u * gap n x j) + S * eta) by (field; lra).
  split; [apply exp_fl_format; assumption|]. split; [apply exp_fl_nonneg; assumption|].
  split; nra.
Qed.

(** Step 3, the sum of the exps: S·sum_lo ≤ Σ ê_j ≤ S·sum_hi. *)
Lemma sum_exps_spec n x :
  (0 < n)%nat -> (forall i, (i < n)%nat -> format (x i)) ->
  partition n x * sum_lo n x <= sum n (exps_fl n x) <= partition n x * sum_hi n x.
Proof.
  intros Hn Fx. pose proof (partition_ge_1 n x Hn) as HS.
  assert (Hs0 : 0 <= sum n (exps_fl n x))
    by (apply sum_nonneg; intros j Hj; apply (exps_spec n x j Hn Fx Hj)).
  unfold sum_lo, sum_hi, wl, wu, neta, arg_err. split.
  - assert (H : partition n x * ((1 - e_exp) * sum n (fun j => exp (logp n x j - u * gap n x j)) - INR n * eta)
                <= sum n (exps_fl n x)).
    { apply (Rle_trans _ (sum n (fun j => partition n x * ((1 - e_exp) * exp (logp n x j - u * gap n x j) - eta)))).
      - rewrite sum_scal_l, sum_minus, sum_scal_l, sum_const. lra.
      - apply sum_le. intros j Hj. apply (exps_spec n x j Hn Fx Hj). }
    apply Rmax_case; [lra | exact H].
  - apply (Rle_trans _ (sum n (fun j => partition n x * ((1 + e_exp) * exp (logp n x j + u * gap n x j) + eta)))).
    + apply sum_le. intros j Hj. apply (exps_spec n x j Hn Fx Hj).
    + rewrite sum_scal_l, sum_plus, sum_scal_l, sum_const. lra.
Qed.

(** Steps 3–4 for the upper bound: ŷ_i ≤ hi_i when den_lo > 0. *)
Lemma softmax_fl_le_hi n x i :
  (0 < n)%nat -> (forall i, (i < n)%nat -> format (x i)) -> (i < n)%nat ->
  0 < den_lo n x ->
  softmax_fl n x i <= hi n x i.
Proof.
  intros Hn Fx Hi Hd. pose proof (partition_ge_1 n x Hn) as HS.
  assert (He : forall j, (j < n)%nat -> format (exps_fl n x j) /\ 0 <= exps_fl n x j)
    by (intros j Hj; destruct (exps_spec n x j Hn Fx Hj) as [A [B _]]; split; assumption).
  destruct (row_sum_fl_enclosure emin prec prec_gt_0_ choice n (exps_fl n x) He) as [Slo _].
  destruct (sum_exps_spec n x Hn Fx) as [Elo _].
  destruct (exps_spec n x i Hn Fx Hi) as [_ [Ei0 [_ Eihi]]].
  pose proof (u_pos prec) as Hu0. pose proof (u_le_half prec prec_gt_0_) as Hu2.
  assert (H1g : 0 < (1 - u) ^ Nat.pred n) by (apply pow_lt; lra).
  unfold den_lo in Hd.
  assert (Hsl : 0 <= sum_lo n x) by apply Rmax_l.
  set (s := row_sum_fl n (exps_fl n x)) in *. set (S := partition n x) in *.
  set (a := (1 - u) ^ Nat.pred n) in *.
  set (D := a * sum_lo n x) in *.
  assert (HsD : S * D <= s) by (unfold D; nra).
  assert (Hs : 0 < s) by nra.
  set (A := (1 + e_exp) * exp (logp n x i + u * gap n x i) + eta) in *.
  assert (HA : 0 <= A) by (pose proof (exp_pos (logp n x i + u * gap n x i)); pose proof eta_pos; unfold A; nra).
  assert (Hq : exps_fl n x i / s <= A / D).
  { apply (Rmult_le_reg_r (s * D)); [nra|].
    replace (exps_fl n x i / s * (s * D)) with (exps_fl n x i * D) by (field; lra).
    replace (A / D * (s * D)) with (A * s) by (field; lra). nra. }
  assert (Hq0 : 0 <= exps_fl n x i / s) by (unfold Rdiv; apply Rmult_le_pos; [lra | left; apply Rinv_0_lt_compat; lra]).
  unfold softmax_fl. fold s.
  destruct (error_N_FLT radix2 emin prec prec_gt_0_ choice (exps_fl n x i / s)) as [r [al [Hr [Hal [_ ->]]]]].
  apply Rabs_le_inv in Hr. apply Rabs_le_inv in Hal. fold (ScoresRounding.u prec) in Hr.
  pose proof half_eta_le_eta. fold (half_eta emin) in Hal.
  unfold hi, num_hi, den_lo, arg_err. fold a. fold D. fold A.
  replace ((exp (logp n x i + u * gap n x i) * (1 + e_exp) + eta) * (1 + u)) with (A * (1 + u)) by (unfold A; ring).
  assert (A * (1 + u) / D = A / D * (1 + u)) by (field; lra).
  pose proof (u_pos prec). nra.
Qed.

(** Every output is in [0, 1]: ê_i is one of ŝ's non-negative summands. *)
Lemma softmax_fl_0_1 n x i :
  (0 < n)%nat -> (forall i, (i < n)%nat -> format (x i)) -> (i < n)%nat ->
  0 <= softmax_fl n x i <= 1.
Proof.
  intros Hn Fx Hi.
  assert (He : forall j, (j < n)%nat -> format (exps_fl n x j) /\ 0 <= exps_fl n x j)
    by (intros j Hj; destruct (exps_spec n x j Hn Fx Hj) as [A [B _]]; split; assumption).
  destruct (row_sum_fl_ge_terms emin prec prec_gt_0_ choice n (exps_fl n x) He) as [Hs0 Hterm].
  specialize (Hterm i Hi). destruct (He i Hi) as [_ Ei0].
  set (s := row_sum_fl n (exps_fl n x)) in *.
  assert (Hq : 0 <= exps_fl n x i / s <= 1).
  { destruct Hs0 as [Hs|Hs].
    - split; [unfold Rdiv; apply Rmult_le_pos; [lra | left; apply Rinv_0_lt_compat; lra]|].
      apply (Rmult_le_reg_r s); [lra|]. unfold Rdiv. rewrite Rmult_assoc, Rinv_l; lra.
    - rewrite <- Hs. unfold Rdiv. rewrite Rinv_0, Rmult_0_r. lra. }
  unfold softmax_fl. fold s. split.
  - rewrite <- (round_0 radix2 (FLT_exp emin prec) (Znearest choice)). apply (fl_le emin prec prec_gt_0_ choice); lra.
  - rewrite <- (fl_id emin prec choice 1 format_1). apply (fl_le emin prec prec_gt_0_ choice); lra.
Qed.

(** Steps 3–4 for the lower bound: lo_i ≤ ŷ_i. *)
Lemma softmax_fl_ge_lo n x i :
  (0 < n)%nat -> (forall i, (i < n)%nat -> format (x i)) -> (i < n)%nat ->
  lo n x i <= softmax_fl n x i.
Proof.
  intros Hn Fx Hi. pose proof (softmax_fl_0_1 n x i Hn Fx Hi) as [Y0 _].
  unfold lo. apply Rmax_lub; [exact Y0|].
  pose proof (partition_ge_1 n x Hn) as HS. pose proof (u_pos prec) as Hu.
  pose proof (u_le_half prec prec_gt_0_) as Hu2. pose proof eta_pos.
  assert (He : forall j, (j < n)%nat -> format (exps_fl n x j) /\ 0 <= exps_fl n x j)
    by (intros j Hj; destruct (exps_spec n x j Hn Fx Hj) as [A [B _]]; split; assumption).
  destruct (row_sum_fl_enclosure emin prec prec_gt_0_ choice n (exps_fl n x) He) as [_ Shi].
  destruct (row_sum_fl_ge_terms emin prec prec_gt_0_ choice n (exps_fl n x) He) as [Hs0 Hterm].
  destruct (sum_exps_spec n x Hn Fx) as [_ Ehi].
  destruct (exps_spec n x i Hn Fx Hi) as [_ [Ei0 [Eilo _]]].
  assert (Hg0 : 1 <= (1 + u) ^ Nat.pred n) by (apply pow_R1_Rle; lra).
  assert (Hsh : 0 <= sum_hi n x).
  { unfold sum_hi, wu, neta. pose proof (pos_INR n).
    assert (0 <= sum n (fun j => exp (logp n x j + arg_err n x j)))
      by (apply sum_nonneg; intros; left; apply exp_pos). nra. }
  specialize (Hterm i Hi).
  set (s := row_sum_fl n (exps_fl n x)) in *. set (S := partition n x) in *.
  set (D := den_hi n x).
  assert (HsD : s <= S * D).
  { unfold D, den_hi.
    apply (Rle_trans _ _ _ Shi). nra. }
  set (B := (1 - e_exp) * exp (logp n x i - arg_err n x i) - eta).
  assert (HnumB : num_lo n x i = Rmax 0 B * (1 - u)).
  { unfold num_lo, B. replace ((exp (logp n x i - arg_err n x i) * (1 - e_exp) - eta) * (1 - u))
      with (((1 - e_exp) * exp (logp n x i - arg_err n x i) - eta) * (1 - u)) by ring.
    apply Rmax_case_strong; apply Rmax_case_strong; intros; nra. }
  assert (HeB : S * Rmax 0 B <= exps_fl n x i).
  { apply Rmax_case; [lra|]. unfold B, arg_err. exact Eilo. }
  rewrite HnumB.
  pose proof (Rmax_l 0 B) as HB0.
  unfold softmax_fl. fold s.
  destruct (error_N_FLT radix2 emin prec prec_gt_0_ choice (exps_fl n x i / s)) as [r [al [Hr [Hal [_ ->]]]]].
  apply Rabs_le_inv in Hr. apply Rabs_le_inv in Hal. fold (ScoresRounding.u prec) in Hr.
  pose proof half_eta_le_eta. fold (half_eta emin) in Hal.
  destruct Hs0 as [Hs|Hs].
  - assert (HD : 0 < D) by nra.
    assert (Hq : Rmax 0 B / D <= exps_fl n x i / s).
    { apply (Rmult_le_reg_r (s * D)); [nra|].
      replace (exps_fl n x i / s * (s * D)) with (exps_fl n x i * D) by (field; lra).
      replace (Rmax 0 B / D * (s * D)) with (Rmax 0 B * s) by (field; lra). nra. }
    assert (Hq0 : 0 <= Rmax 0 B / D) by (unfold Rdiv; apply Rmult_le_pos; [lra | left; apply Rinv_0_lt_compat; lra]).
    assert (Rmax 0 B * (1 - u) / D = Rmax 0 B / D * (1 - u)) by (field; lra).
    nra.
  - (* ŝ = 0: then ê_i = 0, so B ≤ 0 and the bound is −η. *)
    assert (Ei : exps_fl n x i = 0) by (rewrite <- Hs in Hterm; lra).
    assert (HB : Rmax 0 B = 0).
    { apply Rle_antisym; [|lra]. rewrite Ei in HeB. nra. }
    rewrite HB. unfold Rdiv. rewrite !Rmult_0_l. rewrite Ei, Rmult_0_l, Rmult_0_l. lra.
Qed.

Lemma p_nonneg n x i : 0 <= p n x i.
Proof.
  unfold p, partition. unfold Rdiv. destruct (Req_dec (sum n (fun j => exp (shifted n x j))) 0) as [H|H].
  - rewrite H, Rinv_0, Rmult_0_r. lra.
  - apply Rmult_le_pos; [left; apply exp_pos|].
    assert (0 <= sum n (fun j => exp (shifted n x j))) by (apply sum_nonneg; intros; left; apply exp_pos).
    left. apply Rinv_0_lt_compat. lra.
Qed.

(** The last lines of [softmax_bound_with]: the half-widths widened by [slack] ≥ 1 around p_i,
    [b.hi] capped at 1, [b.lo] at 0, only ever widen [lo_out, hi_out]. *)
Lemma widen_hi (pi h z slack : R) : 1 <= slack -> z <= 1 -> z <= h -> z <= Rmin 1 (pi + Rmax 0 (h - pi) * slack).
Proof.
  intros Hs Z1 Zh. apply Rmin_glb; [exact Z1|].
  apply Rmax_case_strong; intros; nra.
Qed.

Lemma widen_lo (pi l z slack : R) : 1 <= slack -> 0 <= z -> l <= z -> Rmax 0 (pi - Rmax 0 (pi - l) * slack) <= z.
Proof.
  intros Hs Z0 Zl. apply Rmax_lub; [exact Z0|].
  apply Rmax_case_strong; intros; nra.
Qed.

(** SM-BND-001: for every row length n ≥ 1 and every row x of floats, every output ŷ_i of the
    kernel's softmax lies in [b.lo_i, b.hi_i] as [softmax_bound] evaluates them (arithmetic and
    storage in the same format: [md.mixed()] false), for every [evaluation_slack] ≥ 1.
    {transcribes src/attncheck/bounds/softmax.hpp softmax_bound_with #c25b5ee4}
    {transcribes src/attncheck/bounds/softmax.hpp softmax_bound #cf8019de} *)
Theorem softmax_fl_element_bound slack n x i :
  1 <= slack -> (0 < n)%nat -> (forall j, (j < n)%nat -> format (x j)) -> (i < n)%nat ->
  bound_lo false 0 0 slack n x i <= softmax_fl n x i <= bound_hi false 0 0 slack n x i.
Proof.
  intros Hs Hn Fx Hi. pose proof (softmax_fl_0_1 n x i Hn Fx Hi) as [Y0 Y1].
  split.
  - unfold bound_lo, lo_out. apply widen_lo; [exact Hs | exact Y0 | apply softmax_fl_ge_lo; assumption].
  - unfold bound_hi. destruct (Rlt_dec 0 (den_lo n x)) as [Hd|]; [|exact Y1].
    unfold hi_out. apply widen_hi; [exact Hs | exact Y1 | apply softmax_fl_le_hi; assumption].
Qed.

(** SM-BND-001 for mixed precision ([md.mixed()] true: 16-bit storage, f32 arithmetic): the
    output is rounded once more, to nearest in the storage format (FLT emin_S prec_S), and lies in
    [b.lo_i, b.hi_i] as [softmax_bound] evaluates them with [out_u] = u_S and [out_eta] = η_S.
    The inputs are floats of the storage format, and so of the arithmetic: the premise [Fx].
    {transcribes src/attncheck/bounds/softmax.hpp softmax_bound_with #c25b5ee4}
    {transcribes src/attncheck/bounds/softmax.hpp softmax_bound #cf8019de} *)
Theorem softmax_fl_element_bound_mixed emin_S prec_S choice_S slack n x i :
  Prec_gt_0 prec_S -> (emin_S <= 0)%Z ->
  1 <= slack -> (0 < n)%nat -> (forall j, (j < n)%nat -> format (x j)) -> (i < n)%nat ->
  let y := round radix2 (FLT_exp emin_S prec_S) (Znearest choice_S) (softmax_fl n x i) in
  bound_lo true (ScoresRounding.u prec_S) (bpow radix2 emin_S) slack n x i <= y
  <= bound_hi true (ScoresRounding.u prec_S) (bpow radix2 emin_S) slack n x i.
Proof.
  intros HpS HeS Hs Hn Fx Hi y. pose proof (softmax_fl_0_1 n x i Hn Fx Hi) as [Z0 Z1].
  set (z := softmax_fl n x i) in *.
  assert (F1 : generic_format radix2 (FLT_exp emin_S prec_S) 1).
  { change 1 with (bpow radix2 0). apply generic_format_bpow. unfold FLT_exp. unfold Prec_gt_0 in HpS. lia. }
  assert (Y0 : 0 <= y).
  { unfold y. rewrite <- (round_0 radix2 (FLT_exp emin_S prec_S) (Znearest choice_S)).
    apply round_le; [apply FLT_exp_valid; exact HpS | apply valid_rnd_N | exact Z0]. }
  assert (Y1 : y <= 1).
  { unfold y. rewrite <- (round_generic radix2 (FLT_exp emin_S prec_S) (Znearest choice_S) 1 F1) at 1.
    apply round_le; [apply FLT_exp_valid; exact HpS | apply valid_rnd_N | exact Z1]. }
  destruct (error_N_FLT radix2 emin_S prec_S HpS choice_S z) as [r [al [Hr [Hal [_ Hy]]]]].
  fold y in Hy. apply Rabs_le_inv in Hr. apply Rabs_le_inv in Hal. fold (ScoresRounding.u prec_S) in Hr.
  pose proof (u_pos prec_S) as HuS. pose proof (u_le_half prec_S HpS) as HuS2.
  pose proof (bpow_gt_0 radix2 emin_S) as HeS0.
  split.
  - unfold bound_lo, lo_out. apply widen_lo; [exact Hs | exact Y0|].
    apply Rmax_lub; [exact Y0|].
    pose proof (softmax_fl_ge_lo n x i Hn Fx Hi) as Hlo. fold z in Hlo. nra.
  - unfold bound_hi. destruct (Rlt_dec 0 (den_lo n x)) as [Hd|]; [|exact Y1].
    pose proof (softmax_fl_le_hi n x i Hn Fx Hi Hd) as Hhi. fold z in Hhi.
    unfold hi_out. apply widen_hi; [exact Hs | exact Y1 | nra].
Qed.
(** The C++ interval is inside [0, 1]: [b.lo] is capped below at 0, [b.hi] above at 1. *)
Lemma bound_lo_nonneg mixed out_u out_eta slack n x i : 0 <= bound_lo mixed out_u out_eta slack n x i.
Proof. apply Rmax_l. Qed.

Lemma bound_hi_le_1 mixed out_u out_eta slack n x i : bound_hi mixed out_u out_eta slack n x i <= 1.
Proof.
  unfold bound_hi. destruct (Rlt_dec 0 _); [apply Rmin_l | lra].
Qed.

(** SM-BND-002 (range and rounded positivity): every output of the kernel's softmax is in [0, 1],
    and it is 0 only where the derived lower bound b.lo_i that [softmax_bound] evaluates is 0: a
    zero output is never below an allowance that excludes 0. Arithmetic and storage in one format.
    {transcribes src/attncheck/bounds/softmax.hpp softmax_bound_with #c25b5ee4}
    {transcribes src/attncheck/bounds/softmax.hpp softmax_bound #cf8019de} *)
Theorem softmax_fl_range slack n x i :
  1 <= slack -> (0 < n)%nat -> (forall j, (j < n)%nat -> format (x j)) -> (i < n)%nat ->
  0 <= softmax_fl n x i <= 1 /\ (softmax_fl n x i = 0 -> bound_lo false 0 0 slack n x i = 0).
Proof.
  intros Hs Hn Fx Hi. destruct (softmax_fl_element_bound slack n x i Hs Hn Fx Hi) as [Lo Hi'].
  pose proof (bound_lo_nonneg false 0 0 slack n x i). pose proof (bound_hi_le_1 false 0 0 slack n x i).
  split; [lra|]. intros Hz. lra.
Qed.

(** SM-BND-002 for mixed precision: the output rounded to the storage format (FLT emin_S prec_S).
    {transcribes src/attncheck/bounds/softmax.hpp softmax_bound_with #c25b5ee4}
    {transcribes src/attncheck/bounds/softmax.hpp softmax_bound #cf8019de} *)
Theorem softmax_fl_range_mixed emin_S prec_S choice_S slack n x i :
  Prec_gt_0 prec_S -> (emin_S <= 0)%Z ->
  1 <= slack -> (0 < n)%nat -> (forall j, (j < n)%nat -> format (x j)) -> (i < n)%nat ->
  let y := round radix2 (FLT_exp emin_S prec_S) (Znearest choice_S) (softmax_fl n x i) in
  0 <= y <= 1 /\ (y = 0 -> bound_lo true (ScoresRounding.u prec_S) (bpow radix2 emin_S) slack n x i = 0).
Proof.
  intros HpS HeS Hs Hn Fx Hi y.
  destruct (softmax_fl_element_bound_mixed emin_S prec_S choice_S slack n x i HpS HeS Hs Hn Fx Hi) as [Lo Hi'].
  fold y in Lo, Hi'.
  pose proof (bound_lo_nonneg true (ScoresRounding.u prec_S) (bpow radix2 emin_S) slack n x i).
  pose proof (bound_hi_le_1 true (ScoresRounding.u prec_S) (bpow radix2 emin_S) slack n x i).
  split; [lra|]. intros Hz. lra.
Qed.

(** The exact p_i lies in the C++ interval too (every half-width is ≥ 0 around p_i). *)
Lemma p_le_1 n x i : (0 < n)%nat -> (i < n)%nat -> p n x i <= 1.
Proof.
  intros Hn Hi. pose proof (partition_ge_1 n x Hn) as HS. unfold p.
  assert (exp (shifted n x i) <= partition n x)
    by (apply (term_le_sum n (fun j => exp (shifted n x j)) i); [intros; left; apply exp_pos | exact Hi]).
  apply (Rmult_le_reg_r (partition n x)); [lra|]. unfold Rdiv. rewrite Rmult_assoc, Rinv_l; lra.
Qed.

Lemma p_in_bound mixed out_u out_eta slack n x i :
  1 <= slack -> (0 < n)%nat -> (i < n)%nat ->
  bound_lo mixed out_u out_eta slack n x i <= p n x i <= bound_hi mixed out_u out_eta slack n x i.
Proof.
  intros Hs Hn Hi. pose proof (p_nonneg n x i). pose proof (p_le_1 n x i Hn Hi). split.
  - unfold bound_lo. apply Rmax_lub; [lra|].
    assert (0 <= Rmax 0 (p n x i - lo_out mixed out_u out_eta n x i) * slack) by (apply Rmult_le_pos; [apply Rmax_l | lra]).
    lra.
  - unfold bound_hi. destruct (Rlt_dec 0 _); try lra.
    apply Rmin_glb; [lra|].
    assert (0 <= Rmax 0 (hi_out mixed out_u out_eta n x i - p n x i) * slack) by (apply Rmult_le_pos; [apply Rmax_l | lra]).
    lra.
Qed.

(** The row maximum moves with a shift of the row, and so the exact softmax does not. *)
Lemma row_max_shift n x c : row_max n (fun j => x j + c) = row_max n x + c.
Proof.
  unfold row_max. generalize (x O) as m0. induction (Nat.pred n) as [|k IH]; intros m0; [reflexivity|].
  rewrite !seq_S, !fold_left_app. cbn [fold_left]. rewrite IH. unfold max_step.
  repeat match goal with |- context [Rlt_dec ?a ?b] => destruct (Rlt_dec a b) end; lra.
Qed.

Lemma p_shift n x c i : p n (fun j => x j + c) i = p n x i.
Proof.
  assert (H : forall j, shifted n (fun j => x j + c) j = shifted n x j)
    by (intros j; unfold shifted; rewrite row_max_shift; ring).
  unfold p, partition. rewrite H.
  rewrite (sum_ext n (fun j => exp (shifted n (fun j => x j + c) j)) (fun j => exp (shifted n x j)))
    by (intros j _; rewrite H; reflexivity).
  reflexivity.
Qed.

(** Two outputs in two intervals that both hold the same p differ by at most the two widths. *)
Lemma two_intervals (y y' q l h l' h' : R) :
  l <= y <= h -> l <= q <= h -> l' <= y' <= h' -> l' <= q <= h' -> Rabs (y' - y) <= (h - l) + (h' - l').
Proof. intros. apply Rabs_le. lra. Qed.

(** SM-INV-002 (translation) after rounding: for rows x and x + c of floats (the shift exact), the
    kernel's outputs differ by at most the widths of the two intervals [softmax_bound] evaluates at
    x and at x + c (both hold the same exact softmax).
    {transcribes src/attncheck/bounds/softmax.hpp softmax_bound_with #c25b5ee4}
    {transcribes src/attncheck/bounds/softmax.hpp softmax_bound #cf8019de} *)
Theorem softmax_fl_shift slack n x c i :
  1 <= slack -> (0 < n)%nat -> (forall j, (j < n)%nat -> format (x j)) ->
  (forall j, (j < n)%nat -> format (x j + c)) -> (i < n)%nat ->
  Rabs (softmax_fl n (fun j => x j + c) i - softmax_fl n x i)
  <= (bound_hi false 0 0 slack n x i - bound_lo false 0 0 slack n x i)
     + (bound_hi false 0 0 slack n (fun j => x j + c) i - bound_lo false 0 0 slack n (fun j => x j + c) i).
Proof.
  intros Hs Hn Fx Fxc Hi.
  apply (two_intervals _ _ (p n x i)).
  - apply (softmax_fl_element_bound slack n x i Hs Hn Fx Hi).
  - apply (p_in_bound false 0 0 slack n x i Hs Hn Hi).
  - apply (softmax_fl_element_bound slack n (fun j => x j + c) i Hs Hn Fxc Hi).
  - rewrite <- (p_shift n x c i). apply (p_in_bound false 0 0 slack n _ i Hs Hn Hi).
Qed.

(** SM-INV-002 for mixed precision: both outputs rounded to the storage format (FLT emin_S prec_S).
    {transcribes src/attncheck/bounds/softmax.hpp softmax_bound_with #c25b5ee4}
    {transcribes src/attncheck/bounds/softmax.hpp softmax_bound #cf8019de} *)
Theorem softmax_fl_shift_mixed emin_S prec_S choice_S slack n x c i :
  Prec_gt_0 prec_S -> (emin_S <= 0)%Z ->
  1 <= slack -> (0 < n)%nat -> (forall j, (j < n)%nat -> format (x j)) ->
  (forall j, (j < n)%nat -> format (x j + c)) -> (i < n)%nat ->
  let rS := round radix2 (FLT_exp emin_S prec_S) (Znearest choice_S) in
  let uS := ScoresRounding.u prec_S in let eS := bpow radix2 emin_S in
  Rabs (rS (softmax_fl n (fun j => x j + c) i) - rS (softmax_fl n x i))
  <= (bound_hi true uS eS slack n x i - bound_lo true uS eS slack n x i)
     + (bound_hi true uS eS slack n (fun j => x j + c) i - bound_lo true uS eS slack n (fun j => x j + c) i).
Proof.
  intros HpS HeS Hs Hn Fx Fxc Hi rS uS eS.
  apply (two_intervals _ _ (p n x i)).
  - apply (softmax_fl_element_bound_mixed emin_S prec_S choice_S slack n x i HpS HeS Hs Hn Fx Hi).
  - apply (p_in_bound true uS eS slack n x i Hs Hn Hi).
  - apply (softmax_fl_element_bound_mixed emin_S prec_S choice_S slack n (fun j => x j + c) i HpS HeS Hs Hn Fxc Hi).
  - rewrite <- (p_shift n x c i). apply (p_in_bound true uS eS slack n _ i Hs Hn Hi).
Qed.

(** ** What exp(0) = 1 adds: ŝ ≥ 1, and SM-INV-001 *)
Section ExpAtZero.
(** Of the libm's exp one more fact: exp(0) = 1 (the libm axiom "exp(+-0) = 1" that `attncheck
    bmc` validates at every input of f16, bf16 and f32; proofs/softmax_kernel.tex assumes it). *)
Hypothesis exp_fl_0 : exp_fl 0 = 1.

(** ŝ ≥ ê_k = exp(fl(m − m)) = exp(0) = 1. *)
Lemma row_sum_fl_ge_1 n x :
  (0 < n)%nat -> (forall j, (j < n)%nat -> format (x j)) -> 1 <= row_sum_fl n (exps_fl n x).
Proof.
  intros Hn Fx. destruct (row_max_spec n x Hn) as [_ [k [Hk Hm]]].
  assert (He : forall j, (j < n)%nat -> format (exps_fl n x j) /\ 0 <= exps_fl n x j)
    by (intros j Hj; destruct (exps_spec n x j Hn Fx Hj) as [A [B _]]; split; assumption).
  destruct (row_sum_fl_ge_terms emin prec prec_gt_0_ choice n (exps_fl n x) He) as [_ Hterm].
  specialize (Hterm k Hk).
  assert (E : exps_fl n x k = 1).
  { unfold exps_fl. rewrite Hm. replace (x k - x k) with 0 by ring.
    rewrite round_0 by apply valid_rnd_N. exact exp_fl_0. }
  lra.
Qed.

(** [normalisation_bound] for the model's u, η, mixed-precision [out_u], [out_eta] and [slack]
    ([evaluation_slack]), from the enclosure [row_sum_fl_enclosure]: finite at every n.
    {transcribes src/attncheck/bounds/softmax.hpp normalisation_bound #841649c4} *)
Definition norm_up (n : nat) : R := (1 + u) / (1 - u) ^ Nat.pred n - 1.
Definition norm_down (n : nat) : R := 1 - (1 - u) / (1 + u) ^ Nat.pred n.
Definition norm_in_arithmetic (n : nat) : R := Rmax (norm_up n) (norm_down n) + INR n * eta.
Definition normalisation_bound (mixed : bool) (out_u out_eta slack : R) (n : nat) : R :=
  (round_out mixed out_u out_eta 1 (norm_in_arithmetic n) + INR n * out_eta) * slack.

(** The outputs' sum before any rounding to storage: Σ ŷ_i within [norm_in_arithmetic] of 1. *)
Lemma softmax_fl_sum_error n x :
  (0 < n)%nat -> (forall j, (j < n)%nat -> format (x j)) ->
  Rabs (sum n (softmax_fl n x) - 1) <= norm_in_arithmetic n.
Proof.
  intros Hn Fx.
  pose proof (u_pos prec) as Hu. pose proof (u_le_half prec prec_gt_0_) as Hu2. pose proof eta_pos.
  assert (He : forall j, (j < n)%nat -> format (exps_fl n x j) /\ 0 <= exps_fl n x j)
    by (intros j Hj; destruct (exps_spec n x j Hn Fx Hj) as [A [B _]]; split; assumption).
  destruct (row_sum_fl_enclosure emin prec prec_gt_0_ choice n (exps_fl n x) He) as [Slo Shi].
  pose proof (row_sum_fl_ge_1 n x Hn Fx) as Hs1.
  set (s := row_sum_fl n (exps_fl n x)) in *. set (E := sum n (exps_fl n x)) in *.
  (* a = (1 − u)^(n−1) > 0 and b = (1 + u)^(n−1) >= 1 take the places of 1 − γ and 1 + γ. *)
  assert (Ha : 0 < (1 - u) ^ Nat.pred n) by (apply pow_lt; lra).
  assert (Hb : 1 <= (1 + u) ^ Nat.pred n) by (apply pow_R1_Rle; lra).
  set (a := (1 - u) ^ Nat.pred n) in *. set (b := (1 + u) ^ Nat.pred n) in *.
  assert (HE : 0 < E) by nra.
  (* each output: ŷ_i = q_i (1 + ρ_i) + α_i, q_i = ê_i / ŝ ≥ 0 *)
  assert (Hi : forall i, (i < n)%nat ->
            (exps_fl n x i / s) * (1 - u) - half_eta emin <= softmax_fl n x i <=
            (exps_fl n x i / s) * (1 + u) + half_eta emin).
  { intros i Hi. destruct (He i Hi) as [_ Ei0].
    assert (Hq : 0 <= exps_fl n x i / s) by (unfold Rdiv; apply Rmult_le_pos; [lra | left; apply Rinv_0_lt_compat; lra]).
    unfold softmax_fl. fold s.
    destruct (error_N_FLT radix2 emin prec prec_gt_0_ choice (exps_fl n x i / s)) as [r [al [Hr [Hal [_ ->]]]]].
    apply Rabs_le_inv in Hr. apply Rabs_le_inv in Hal. fold (ScoresRounding.u prec) in Hr. fold (half_eta emin) in Hal.
    split; nra. }
  assert (Hsum : sum n (fun i => exps_fl n x i / s) = E / s) by (unfold E; apply sum_div).
  assert (Lo : sum n (fun i => exps_fl n x i / s * (1 - u) - half_eta emin) <= sum n (softmax_fl n x))
    by (apply sum_le; intros i Hi'; apply (Hi i Hi')).
  assert (Up : sum n (softmax_fl n x) <= sum n (fun i => exps_fl n x i / s * (1 + u) + half_eta emin))
    by (apply sum_le; intros i Hi'; apply (Hi i Hi')).
  rewrite sum_minus, sum_scal_r, Hsum, sum_const in Lo. rewrite sum_plus, sum_scal_r, Hsum, sum_const in Up.
  pose proof half_eta_le_eta. pose proof (pos_INR n).
  assert (Q1 : E / s <= 1 / a).
  { apply (Rmult_le_reg_r (s * a)); [nra|].
    replace (E / s * (s * a)) with (E * a) by (field; lra).
    replace (1 / a * (s * a)) with s by (field; lra). nra. }
  assert (Q2 : 1 / b <= E / s).
  { apply (Rmult_le_reg_r (s * b)); [nra|].
    replace (E / s * (s * b)) with (E * b) by (field; lra).
    replace (1 / b * (s * b)) with s by (field; lra). nra. }
  assert (U1 : E / s * (1 + u) - 1 <= norm_up n).
  { unfold norm_up. fold a. replace ((1 + u) / a) with (1 / a * (1 + u)) by (field; lra). nra. }
  assert (D1 : 1 - E / s * (1 - u) <= norm_down n).
  { unfold norm_down. fold b. replace ((1 - u) / b) with (1 / b * (1 - u)) by (field; lra). nra. }
  unfold norm_in_arithmetic. pose proof (Rmax_l (norm_up n) (norm_down n)). pose proof (Rmax_r (norm_up n) (norm_down n)).
  apply Rabs_le. split; nra.
Qed.

(** SM-INV-001: for every row length n ≥ 1 and every row x of floats, the sum
    of the kernel's softmax outputs is within [normalisation_bound] of 1 (arithmetic and storage in
    one format), for every [evaluation_slack] ≥ 1.
    {transcribes src/attncheck/bounds/softmax.hpp normalisation_bound #841649c4} *)
Theorem softmax_fl_sum_bound slack n x :
  1 <= slack -> (0 < n)%nat -> (forall j, (j < n)%nat -> format (x j)) ->
  Rabs (sum n (softmax_fl n x) - 1) <= normalisation_bound false 0 0 slack n.
Proof.
  intros Hs Hn Fx. pose proof (softmax_fl_sum_error n x Hn Fx) as H.
  unfold normalisation_bound, round_out. rewrite Rmult_0_r, Rplus_0_r.
  assert (0 <= norm_in_arithmetic n) by (apply (Rle_trans _ _ _ (Rabs_pos _) H)). nra.
Qed.

(** SM-INV-001 for mixed precision: each output rounded once more, to nearest in the storage
    format (FLT emin_S prec_S); [out_u] = u_S, [out_eta] = η_S.
    {transcribes src/attncheck/bounds/softmax.hpp normalisation_bound #841649c4} *)
Theorem softmax_fl_sum_bound_mixed emin_S prec_S choice_S slack n x :
  Prec_gt_0 prec_S -> 1 <= slack -> (0 < n)%nat -> (forall j, (j < n)%nat -> format (x j)) ->
  Rabs (sum n (fun i => round radix2 (FLT_exp emin_S prec_S) (Znearest choice_S) (softmax_fl n x i)) - 1)
  <= normalisation_bound true (ScoresRounding.u prec_S) (bpow radix2 emin_S) slack n.
Proof.
  intros HpS Hs Hn Fx. pose proof (softmax_fl_sum_error n x Hn Fx) as H.
  pose proof (u_pos prec_S) as HuS. pose proof (bpow_gt_0 radix2 emin_S) as HeS.
  set (uS := ScoresRounding.u prec_S) in *. set (eS := bpow radix2 emin_S) in *.
  set (B := norm_in_arithmetic n) in *.
  assert (Hi : forall i, (i < n)%nat ->
            Rabs (round radix2 (FLT_exp emin_S prec_S) (Znearest choice_S) (softmax_fl n x i) - softmax_fl n x i)
            <= uS * softmax_fl n x i + / 2 * eS).
  { intros i Hi. destruct (softmax_fl_0_1 n x i Hn Fx Hi) as [Y0 _].
    destruct (error_N_FLT radix2 emin_S prec_S HpS choice_S (softmax_fl n x i)) as [r [al [Hr [Hal [_ ->]]]]].
    fold (ScoresRounding.u prec_S) in Hr. fold uS in Hr. fold eS in Hal.
    replace (softmax_fl n x i * (1 + r) + al - softmax_fl n x i) with (softmax_fl n x i * r + al) by ring.
    apply (Rle_trans _ _ _ (Rabs_triang _ _)). rewrite Rabs_mult, (Rabs_pos_eq (softmax_fl n x i)) by exact Y0.
    rewrite (Rmult_comm uS). apply Rplus_le_compat; [apply Rmult_le_compat_l; [exact Y0 | exact Hr] | exact Hal]. }
  assert (HS : Rabs (sum n (fun i => round radix2 (FLT_exp emin_S prec_S) (Znearest choice_S) (softmax_fl n x i))
                     - sum n (softmax_fl n x)) <= uS * sum n (softmax_fl n x) + INR n * (/ 2 * eS)).
  { rewrite <- sum_minus. apply (Rle_trans _ _ _ (sum_abs_le _ _)).
    apply (Rle_trans _ (sum n (fun i => uS * softmax_fl n x i + / 2 * eS))).
    - apply sum_le. exact Hi.
    - rewrite sum_plus, sum_scal_l, sum_const. lra. }
  assert (Hsum : sum n (softmax_fl n x) <= 1 + B) by (apply Rabs_le_inv in H; lra).
  assert (0 <= B) by (apply (Rle_trans _ _ _ (Rabs_pos _) H)).
  pose proof (pos_INR n).
  unfold normalisation_bound, round_out. fold B. cbn iota.
  assert (Htot : Rabs (sum n (fun i => round radix2 (FLT_exp emin_S prec_S) (Znearest choice_S) (softmax_fl n x i)) - 1)
                 <= B + uS * (1 + B) + eS + INR n * eS).
  { replace (sum n (fun i => round radix2 (FLT_exp emin_S prec_S) (Znearest choice_S) (softmax_fl n x i)) - 1)
      with ((sum n (fun i => round radix2 (FLT_exp emin_S prec_S) (Znearest choice_S) (softmax_fl n x i))
             - sum n (softmax_fl n x)) + (sum n (softmax_fl n x) - 1)) by ring.
    apply (Rle_trans _ _ _ (Rabs_triang _ _)). nra. }
  assert (0 <= B + uS * (1 + B) + eS + INR n * eS) by nra.
  nra.
Qed.

(** SM-INV-003: a single element gives exactly 1: exp(fl(x − x)) = exp(0) = 1, fl(0 + 1) = 1 and
    fl(1/1) = 1. *)
Theorem softmax_fl_single x : format (x O) -> softmax_fl 1 x O = 1.
Proof.
  intros Fx.
  assert (Hm : row_max 1 x = x O) by reflexivity.
  assert (E : exps_fl 1 x O = 1).
  { unfold exps_fl. rewrite Hm. replace (x O - x O) with 0 by ring.
    rewrite round_0 by apply valid_rnd_N. exact exp_fl_0. }
  unfold softmax_fl. rewrite (row_sum_fl_S emin prec choice 0 (exps_fl 1 x)), E.
  unfold row_sum_fl. simpl fold_left. rewrite Rplus_0_l, (fl_id emin prec choice 1 format_1).
  replace (1 / 1) with 1 by field. apply (fl_id emin prec choice 1 format_1).
Qed.

Lemma row_sum_fl_ext n e e' :
  (forall i, (i < n)%nat -> e i = e' i) -> row_sum_fl n e = row_sum_fl n e'.
Proof.
  induction n as [|n IH]; intros H; [reflexivity|].
  rewrite !(row_sum_fl_S emin prec choice). rewrite IH by (intros; apply H; lia). rewrite H by lia. reflexivity.
Qed.

(** SM-INV-004: a constant row gives RN(1/n) everywhere while n ≤ 2^prec: every exp is exp(0) = 1
    and the partial sums 1, 2, …, n are exact. *)
Theorem softmax_fl_constant c n i :
  format c -> (0 < n)%nat -> INR n <= bpow radix2 prec -> (i < n)%nat ->
  softmax_fl n (fun _ => c) i = fl (1 / INR n).
Proof.
  intros Fc Hn Hp Hi.
  destruct (row_max_spec n (fun _ => c) Hn) as [_ [k [Hk Hm]]].
  assert (E : forall j, exps_fl n (fun _ => c) j = 1).
  { intros j. unfold exps_fl. rewrite Hm. replace (c - c) with 0 by ring.
    rewrite round_0 by apply valid_rnd_N. exact exp_fl_0. }
  assert (S1 : forall k, (k <= n)%nat -> row_sum_fl k (fun _ => 1) = INR k).
  { induction k0 as [|k0 IH]; intros Hk0; [reflexivity|].
    rewrite (row_sum_fl_S emin prec choice), IH by lia. rewrite <- S_INR.
    apply (fl_id emin prec choice). apply (format_nat emin prec prec_gt_0_ emin_le_0).
    apply (Rle_trans _ (INR n)); [apply le_INR; lia | exact Hp]. }
  unfold softmax_fl. rewrite E.
  rewrite (row_sum_fl_ext n (exps_fl n (fun _ => c)) (fun _ => 1)) by (intros; apply E).
  rewrite S1 by lia. reflexivity.
Qed.

(** SM-MON-001 as it holds after rounding: with the libm's exp non-decreasing on the floats ≤ 0
    (checked per format, docs/oracle.md), x_j ≤ x_i gives ŷ_j ≤ ŷ_i, and equal inputs equal
    outputs: subtraction of the same m, exp, and division by the same ŝ > 0 are all monotone. *)
Section Monotone.
Hypothesis exp_fl_monotone : forall a b, format a -> format b -> a <= b -> b <= 0 -> exp_fl a <= exp_fl b.

Theorem softmax_fl_monotone n x i j :
  (0 < n)%nat -> (forall k, (k < n)%nat -> format (x k)) -> (i < n)%nat -> (j < n)%nat ->
  (x j <= x i -> softmax_fl n x j <= softmax_fl n x i) /\
  (x j = x i -> softmax_fl n x j = softmax_fl n x i).
Proof.
  intros Hn Fx Hi Hj. split; [|intros Heq; unfold softmax_fl, exps_fl; rewrite Heq; reflexivity].
  intros Hle. destruct (row_max_spec n x Hn) as [Hmax [k [Hk Hm]]].
  assert (Fm : format (row_max n x)) by (rewrite Hm; apply Fx, Hk).
  destruct (sub_max_spec n x j (Fx j Hj) Fm (Hmax j Hj)) as [Ftj [Htj _]].
  destruct (sub_max_spec n x i (Fx i Hi) Fm (Hmax i Hi)) as [Fti [Hti _]].
  pose proof (row_sum_fl_ge_1 n x Hn Fx) as Hs.
  assert (He : exps_fl n x j <= exps_fl n x i).
  { unfold exps_fl. apply exp_fl_monotone; [exact Ftj | exact Fti | | exact Hti].
    apply (fl_le emin prec prec_gt_0_ choice). lra. }
  unfold softmax_fl. apply (fl_le emin prec prec_gt_0_ choice).
  unfold Rdiv. apply Rmult_le_compat_r; [left; apply Rinv_0_lt_compat; lra | exact He].
Qed.
End Monotone.

(** ** SM-BND-003: the kernel's log-softmax *)
Section LogSoftmax.
(** The libm's log at the format: abstract, and assumed only relatively accurate at the floats
    s ≥ 1 ([Model::log_rel], the model of proofs/softmax_kernel.tex: fl(log s) = log s·(1 + λ),
    |λ| ≤ e_log), returning a float. *)
Variable log_fl : R -> R.
Variable e_log : R.
Hypothesis e_log_nonneg : 0 <= e_log.
Hypothesis log_fl_format : forall s, format s -> 1 <= s -> format (log_fl s).
Hypothesis log_fl_accurate : forall s, format s -> 1 <= s -> Rabs (log_fl s - ln s) <= e_log * Rabs (ln s).

(** The kernel, src/attncheck/kernels/log_softmax.hpp: the exps of softmax, [ls = log(row_sum(y,
    n));], then [y[i] = T(x[i] - m) - ls;]
    {transcribes src/attncheck/kernels/log_softmax.hpp log_softmax #5a978291} *)
Definition log_softmax_fl (n : nat) (x : nat -> R) (i : nat) : R :=
  fl (fl (x i - row_max n x) - log_fl (row_sum_fl n (exps_fl n x))).

(** The bound, as [log_softmax_bound] evaluates it (the softmax's sum range in the arithmetic:
    [r_lo], [r_hi] are [den_lo], [den_hi]; [log_sum] = log Σ_j exp(x_j − m)), with [round_out]
    as above. An [r_lo] ≤ 0 makes [log_r] and so the bound infinite: no claim.
    {transcribes src/attncheck/bounds/softmax.hpp log_softmax_bound #c51401f8} *)
Section LogBound.
Variable mixed : bool.
Variable out_u out_eta slack : R.
Variable n : nat.
Variable x : nat -> R.
Definition log_sum : R := ln (partition n x).
Definition log_r : R := Rmax (Rabs (ln (den_lo n x))) (Rabs (ln (den_hi n x))).
Definition ls_hi : R := log_sum + log_r * (1 + e_log) + e_log * log_sum.
Definition stored_ls : R := if mixed then out_u / (1 - out_u) + out_u * (ls_hi + out_u) + out_eta else 0.
Definition log_B (i : nat) : R := u * gap n x i + log_r * (1 + e_log) + e_log * log_sum + stored_ls.
Definition log_bound (i : nat) : R :=
  round_out mixed out_u out_eta (Rabs (logp n x i)) (log_B i + u * (Rabs (logp n x i) + log_B i)) * slack.
End LogBound.

Lemma ln_le_compat a b : 0 < a -> a <= b -> ln a <= ln b.
Proof. intros Ha [H|H]; [left; apply ln_increasing; assumption | subst; lra]. Qed.

(** The kernel's log-softmax before its last rounding to storage: ŷ_i within
    B_i + u(|y_i| + B_i) of y_i = log p_i (B_i with [stored_ls] = 0). *)
Lemma log_softmax_fl_error n x i :
  (0 < n)%nat -> (forall j, (j < n)%nat -> format (x j)) -> (i < n)%nat ->
  0 < den_lo n x ->
  Rabs (log_softmax_fl n x i - logp n x i)
  <= log_B false 0 0 n x i + u * (Rabs (logp n x i) + log_B false 0 0 n x i).
Proof.
  intros Hn Fx Hi Hd. pose proof (partition_ge_1 n x Hn) as HS.
  destruct (row_max_spec n x Hn) as [Hmax [k [Hk Hm]]].
  assert (Fm : format (row_max n x)) by (rewrite Hm; apply Fx, Hk).
  destruct (sub_max_spec n x i (Fx i Hi) Fm (Hmax i Hi)) as [Ft [_ Ht]].
  assert (He : forall j, (j < n)%nat -> format (exps_fl n x j) /\ 0 <= exps_fl n x j)
    by (intros j Hj; destruct (exps_spec n x j Hn Fx Hj) as [A [B _]]; split; assumption).
  destruct (row_sum_fl_enclosure emin prec prec_gt_0_ choice n (exps_fl n x) He) as [Slo Shi].
  destruct (sum_exps_spec n x Hn Fx) as [Elo Ehi].
  pose proof (u_pos prec) as Hu. pose proof (u_le_half prec prec_gt_0_) as Hu2.
  assert (H1g : 0 < (1 - u) ^ Nat.pred n) by (apply pow_lt; lra).
  assert (Hg0 : 1 <= (1 + u) ^ Nat.pred n) by (apply pow_R1_Rle; lra).
  assert (Hsl : 0 <= sum_lo n x) by apply Rmax_l.
  assert (Hdl : 0 < den_lo n x) by exact Hd.
  set (s := row_sum_fl n (exps_fl n x)) in *. set (S := partition n x) in *.
  assert (HsD : S * den_lo n x <= s) by (unfold den_lo; nra).
  assert (HsU : s <= S * den_hi n x) by (unfold den_hi; apply (Rle_trans _ _ _ Shi); nra).
  assert (Hs : 0 < s) by nra.
  (* ln ŝ = ln S + ln(ŝ/S), |ln(ŝ/S)| ≤ log_r *)
  assert (Hq : Rabs (ln (s / S)) <= log_r n x).
  { assert (Q1 : den_lo n x <= s / S) by (apply (Rmult_le_reg_l S); [lra|]; unfold Rdiv; rewrite <- Rmult_assoc, (Rmult_comm S s), Rmult_assoc, Rinv_r, Rmult_1_r; lra).
    assert (Q2 : s / S <= den_hi n x) by (apply (Rmult_le_reg_l S); [lra|]; unfold Rdiv; rewrite <- Rmult_assoc, (Rmult_comm S s), Rmult_assoc, Rinv_r, Rmult_1_r; lra).
    pose proof (ln_le_compat _ _ Hdl Q1). pose proof (ln_le_compat (s / S) (den_hi n x) ltac:(apply Rdiv_lt_0_compat; lra) Q2).
    unfold log_r. apply Rabs_le. split.
    - apply (Rle_trans _ (- Rabs (ln (den_lo n x)))); [apply Ropp_le_contravar, Rmax_l|].
      pose proof (Rle_abs (- ln (den_lo n x))). rewrite Rabs_Ropp in H1. lra.
    - apply (Rle_trans _ (Rabs (ln (den_hi n x)))); [|apply Rmax_r]. pose proof (Rle_abs (ln (den_hi n x))). lra. }
  assert (Hln : ln s = ln S + ln (s / S)).
  { rewrite <- ln_mult by (try apply Rdiv_lt_0_compat; lra). f_equal. field. lra. }
  assert (HlnS : 0 <= ln S) by (rewrite <- ln_1; apply ln_le_compat; lra).
  assert (Hs1 : 1 <= s) by apply (row_sum_fl_ge_1 n x Hn Fx).
  pose proof (log_fl_accurate s (row_sum_fl_format emin prec prec_gt_0_ choice n (exps_fl n x)) Hs1) as Hlog.
  fold s in Hlog.
  set (ls := log_fl s) in *.
  assert (Hls : Rabs (ls - ln S) <= log_r n x * (1 + e_log) + e_log * log_sum n x).
  { unfold log_sum. fold S.
    replace (ls - ln S) with ((ls - ln s) + ln (s / S)) by (rewrite Hln; ring).
    apply (Rle_trans _ _ _ (Rabs_triang _ _)).
    assert (Rabs (ln s) <= ln S + log_r n x) by (rewrite Hln; apply (Rle_trans _ _ _ (Rabs_triang _ _)); rewrite Rabs_pos_eq by lra; lra).
    nra. }
  set (th := fl (x i - row_max n x)) in *.
  assert (Fls : format ls) by (apply log_fl_format; [apply (row_sum_fl_format emin prec prec_gt_0_ choice) | exact Hs1]).
  assert (Hy : logp n x i = shifted n x i - ln S).
  { unfold logp, p. fold S. unfold Rdiv.
    rewrite ln_mult by (try apply exp_pos; apply Rinv_0_lt_compat; lra).
    rewrite ln_exp, ln_Rinv by lra. ring. }
  set (B := log_B false 0 0 n x i).
  assert (Hz : Rabs ((th - ls) - logp n x i) <= B).
  { unfold B, log_B, stored_ls. rewrite Hy.
    replace (th - ls - (shifted n x i - ln S)) with ((th - shifted n x i) - (ls - ln S)) by ring.
    apply (Rle_trans _ _ _ (Rabs_triang _ _)). rewrite Rabs_Ropp. lra. }
  unfold log_softmax_fl. fold th s ls.
  destruct (plus_model emin prec prec_gt_0_ choice th (- ls) Ft (generic_format_opp _ _ _ Fls)) as [d [Hd' Hfl]].
  replace (th - ls) with (th + - ls) by ring. rewrite Hfl.
  replace ((th + - ls) * (1 + d) - logp n x i) with (((th - ls) - logp n x i) + (th - ls) * d) by ring.
  apply (Rle_trans _ _ _ (Rabs_triang _ _)). apply Rplus_le_compat; [exact Hz|].
  rewrite Rabs_mult, Rmult_comm. apply Rmult_le_compat; [apply Rabs_pos | apply Rabs_pos | exact Hd'|].
  replace (th - ls) with ((th - ls - logp n x i) + logp n x i) by ring.
  apply (Rle_trans _ _ _ (Rabs_triang _ _)). lra.
Qed.

(** SM-BND-003: for every row length n ≥ 1 and every row x of floats, every output of the
    kernel's log-softmax is within [log_softmax_bound]'s out_i of log p_i (arithmetic and storage
    in one format: [md.mixed()] false), for every [evaluation_slack] ≥ 1, wherever that bound is
    finite (r_lo > 0).
    {transcribes src/attncheck/bounds/softmax.hpp log_softmax_bound #c51401f8} *)
Theorem log_softmax_fl_bound slack n x i :
  1 <= slack -> (0 < n)%nat -> (forall j, (j < n)%nat -> format (x j)) -> (i < n)%nat ->
  0 < den_lo n x ->
  Rabs (log_softmax_fl n x i - logp n x i) <= log_bound false 0 0 slack n x i.
Proof.
  intros Hs Hn Fx Hi Hd. pose proof (log_softmax_fl_error n x i Hn Fx Hi Hd) as H.
  unfold log_bound, round_out. set (b := log_B false 0 0 n x i + u * (Rabs (logp n x i) + log_B false 0 0 n x i)) in *.
  assert (0 <= b) by (apply (Rle_trans _ _ _ (Rabs_pos _) H)). nra.
Qed.

(** SM-BND-003 for mixed precision ([md.mixed()] true): the output rounded once more, to nearest
    in the storage format (FLT emin_S prec_S), is within [log_softmax_bound]'s out_i of log p_i
    with [out_u] = u_S, [out_eta] = η_S. (The template keeps ls in the arithmetic; the bound's
    [stored_ls], for kernels that store it, only widens it.)
    {transcribes src/attncheck/bounds/softmax.hpp log_softmax_bound #c51401f8} *)
Theorem log_softmax_fl_bound_mixed emin_S prec_S choice_S slack n x i :
  Prec_gt_0 prec_S -> 1 <= slack -> (0 < n)%nat -> (forall j, (j < n)%nat -> format (x j)) -> (i < n)%nat ->
  0 < den_lo n x ->
  Rabs (round radix2 (FLT_exp emin_S prec_S) (Znearest choice_S) (log_softmax_fl n x i) - logp n x i)
  <= log_bound true (ScoresRounding.u prec_S) (bpow radix2 emin_S) slack n x i.
Proof.
  intros HpS Hs Hn Fx Hi Hd. pose proof (log_softmax_fl_error n x i Hn Fx Hi Hd) as H.
  pose proof (u_pos prec_S) as HuS. pose proof (u_le_half prec_S HpS) as HuS2.
  pose proof (bpow_gt_0 radix2 emin_S) as HeS. pose proof (u_pos prec) as Hu.
  set (uS := ScoresRounding.u prec_S) in *. set (eS := bpow radix2 emin_S) in *.
  set (y := logp n x i) in *. set (z := log_softmax_fl n x i) in *.
  assert (Hst : 0 <= stored_ls true uS eS n x).
  { assert (0 <= ln (partition n x)) by (rewrite <- ln_1; apply ln_le_compat; [lra | apply partition_ge_1, Hn]).
    assert (0 <= log_r n x) by (unfold log_r; apply (Rle_trans _ (Rabs (ln (den_lo n x)))); [apply Rabs_pos | apply Rmax_l]).
    assert (0 <= uS / (1 - uS)) by (unfold Rdiv; apply Rmult_le_pos; [lra | left; apply Rinv_0_lt_compat; lra]).
    assert (0 <= ls_hi n x) by (unfold ls_hi, log_sum; nra).
    unfold stored_ls. cbn iota. nra. }
  assert (HB : log_B false 0 0 n x i + stored_ls true uS eS n x = log_B true uS eS n x i)
    by (unfold log_B, stored_ls; simpl; ring).
  set (B0 := log_B false 0 0 n x i) in *. set (B1 := log_B true uS eS n x i) in *.
  assert (Hz : Rabs (z - y) <= B1 + u * (Rabs y + B1)) by (apply (Rle_trans _ _ _ H); nra).
  set (C := B1 + u * (Rabs y + B1)) in *.
  destruct (error_N_FLT radix2 emin_S prec_S HpS choice_S z) as [r [al [Hr [Hal [_ Hy]]]]].
  fold uS in Hr. rewrite Hy. fold eS in Hal.
  unfold log_bound, round_out. fold B1 C.
  replace (z * (1 + r) + al - y) with ((z - y) + z * r + al) by ring.
  assert (Hzr : Rabs (z * r) <= uS * (Rabs y + C)).
  { rewrite Rabs_mult, Rmult_comm. apply Rmult_le_compat; [apply Rabs_pos | apply Rabs_pos | exact Hr|].
    replace z with ((z - y) + y) by ring. apply (Rle_trans _ _ _ (Rabs_triang _ _)). lra. }
  assert (0 <= C) by (apply (Rle_trans _ _ _ (Rabs_pos _) Hz)).
  assert (Htot : Rabs ((z - y) + z * r + al) <= C + uS * (Rabs y + C) + eS).
  { apply (Rle_trans _ _ _ (Rabs_triang _ _)). apply Rplus_le_compat; [|lra].
    apply (Rle_trans _ _ _ (Rabs_triang _ _)). lra. }
  assert (0 <= C + uS * (Rabs y + C) + eS) by (pose proof (Rabs_pos y); nra).
  fold y. fold C. nra.
Qed.
End LogSoftmax.
End ExpAtZero.
End Softmax.
