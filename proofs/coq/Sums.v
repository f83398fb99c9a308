(** * Finite sums over 0..n-1 of real-valued functions on nat, and their basic facts *)
(** Vectors of R^n are functions [nat -> R] of which only the indices [i < n] matter; every
    statement quantifies over [i < n] only. *)
From Coq Require Import Reals Lia Lra Psatz.
Open Scope R_scope.

(** [sum n f] = f 0 + ... + f (n-1). *)
Fixpoint sum (n : nat) (f : nat -> R) : R :=
  match n with O => 0 | S k => sum k f + f k end.

Lemma sum_ext n f g : (forall i, (i < n)%nat -> f i = g i) -> sum n f = sum n g.
Proof.
  induction n as [|n IH]; intros H; simpl; [reflexivity|].
  rewrite IH by (intros; apply H; lia). rewrite (H n) by lia. reflexivity.
Qed.

Lemma sum_plus n f g : sum n (fun i => f i + g i) = sum n f + sum n g.
Proof. induction n; simpl; [lra|]. rewrite IHn. lra. Qed.

Lemma sum_minus n f g : sum n (fun i => f i - g i) = sum n f - sum n g.
Proof. induction n; simpl; [lra|]. rewrite IHn. lra. Qed.

Lemma sum_opp n f : sum n (fun i => - f i) = - sum n f.
Proof. induction n; simpl; [lra|]. rewrite IHn. lra. Qed.

Lemma sum_scal_l n c f : sum n (fun i => c * f i) = c * sum n f.
Proof. induction n; simpl; [lra|]. rewrite IHn. lra. Qed.

Lemma sum_scal_r n c f : sum n (fun i => f i * c) = sum n f * c.
Proof. induction n; simpl; [lra|]. rewrite IHn. lra. Qed.

Lemma sum_div n c f : sum n (fun i => f i / c) = sum n f / c.
Proof. unfold Rdiv. apply sum_scal_r. Qed.

Lemma sum_const n c : sum n (fun _ => c) = INR n * c.
Proof.
  induction n; simpl sum; [simpl; lra|]. rewrite IHn, S_INR. lra.
Qed.

Lemma sum_zero n : sum n (fun _ => 0) = 0.
Proof. rewrite sum_const. lra. Qed.

Lemma sum_le n f g :
  (forall i, (i < n)%nat -> f i <= g i) -> sum n f <= sum n g.
Proof.
  induction n as [|n IH]; intros H; simpl; [lra|].
  assert (sum n f <= sum n g) by (apply IH; intros; apply H; lia).
  specialize (H n ltac:(lia)). lra.
Qed.

Lemma sum_nonneg n f : (forall i, (i < n)%nat -> 0 <= f i) -> 0 <= sum n f.
Proof. intros H. rewrite <- (sum_zero n). apply sum_le. exact H. Qed.

Lemma sum_pos n f :
  (0 < n)%nat -> (forall i, (i < n)%nat -> 0 < f i) -> 0 < sum n f.
Proof.
  destruct n as [|n]; intros Hn H; [lia|]. simpl.
  assert (0 <= sum n f) by (apply sum_nonneg; intros; left; apply H; lia).
  specialize (H n ltac:(lia)). lra.
Qed.

(** One non-negative term is at most the sum. *)
Lemma term_le_sum n f k :
  (forall i, (i < n)%nat -> 0 <= f i) -> (k < n)%nat -> f k <= sum n f.
Proof.
  induction n as [|n IH]; intros H Hk; [lia|]. simpl.
  destruct (Nat.eq_dec k n) as [->|Hne].
  - assert (0 <= sum n f) by (apply sum_nonneg; intros; apply H; lia). lra.
  - assert (f k <= sum n f) by (apply IH; [intros; apply H; lia | lia]).
    specialize (H n ltac:(lia)). lra.
Qed.

(** Two distinct non-negative terms are at most the sum. *)
Lemma two_terms_le_sum n f a b :
  (forall i, (i < n)%nat -> 0 <= f i) -> (a < n)%nat -> (b < n)%nat -> a <> b ->
  f a + f b <= sum n f.
Proof.
  induction n as [|n IH]; intros H Ha Hb Hab; [lia|]. simpl.
  assert (Hn : 0 <= f n) by (apply H; lia).
  assert (Hs : forall i, (i < n)%nat -> 0 <= f i) by (intros; apply H; lia).
  destruct (Nat.eq_dec a n) as [->|Ha']; destruct (Nat.eq_dec b n) as [->|Hb'].
  - congruence.
  - assert (f b <= sum n f) by (apply term_le_sum; [exact Hs | lia]). lra.
  - assert (f a <= sum n f) by (apply term_le_sum; [exact Hs | lia]). lra.
  - assert (f a + f b <= sum n f) by (apply IH; [exact Hs | lia | lia | exact Hab]). lra.
Qed.

(** Non-negative terms with a zero sum are all zero. *)
Lemma sum_nonneg_eq_0 n f :
  (forall i, (i < n)%nat -> 0 <= f i) -> sum n f = 0 -> forall i, (i < n)%nat -> f i = 0.
Proof.
  intros H Hs i Hi.
  assert (f i <= sum n f) by (apply term_le_sum; assumption).
  specialize (H i Hi). lra.
Qed.

(** A finite non-empty family has a largest and a smallest member. *)
Lemma argmax n f : (0 < n)%nat -> exists a, (a < n)%nat /\ forall i, (i < n)%nat -> f i <= f a.
Proof.
  induction n as [|n IH]; intros Hn; [lia|].
  destruct n as [|n].
  - exists O. split; [lia|]. intros i Hi. replace i with O by lia. lra.
  - destruct (IH ltac:(lia)) as [a [Ha Hmax]].
    destruct (Rle_dec (f (S n)) (f a)) as [Hle|Hgt].
    + exists a. split; [lia|]. intros i Hi.
      destruct (Nat.eq_dec i (S n)) as [->|Hne]; [exact Hle | apply Hmax; lia].
    + exists (S n). split; [lia|]. intros i Hi.
      destruct (Nat.eq_dec i (S n)) as [->|Hne]; [lra|].
      specialize (Hmax i ltac:(lia)). lra.
Qed.

Lemma argmin n f : (0 < n)%nat -> exists b, (b < n)%nat /\ forall i, (i < n)%nat -> f b <= f i.
Proof.
  intros Hn. destruct (argmax n (fun i => - f i) Hn) as [b [Hb H]].
  exists b. split; [exact Hb|]. intros i Hi. specialize (H i Hi). lra.
Qed.

(** A quadratic that is non-negative everywhere has a non-positive discriminant. *)
Lemma quadratic_nonneg_discriminant a b c :
  0 <= a -> (forall t, 0 <= a * t * t + 2 * b * t + c) -> b * b <= a * c.
Proof.
  intros Ha H. destruct Ha as [Ha|Ha].
  - specialize (H (- b / a)).
    replace (a * (- b / a) * (- b / a) + 2 * b * (- b / a) + c) with (c - b * b / a) in H
      by (field; lra).
    assert (b * b / a <= c) by lra.
    apply (Rmult_le_compat_l a) in H0; [|lra].
    replace (a * (b * b / a)) with (b * b) in H0 by (field; lra). lra.
  - subst a. destruct (Req_dec b 0) as [->|Hb]; [lra|].
    specialize (H (- (Rabs c + 1) / (2 * b))).
    replace (0 * (- (Rabs c + 1) / (2 * b)) * (- (Rabs c + 1) / (2 * b))
             + 2 * b * (- (Rabs c + 1) / (2 * b)) + c) with (c - (Rabs c + 1)) in H
      by (field; lra).
    pose proof (Rle_abs c). lra.
Qed.

(** Cauchy–Schwarz for a non-negatively weighted inner product. *)
Lemma cauchy_schwarz_weighted n w f g :
  (forall i, (i < n)%nat -> 0 <= w i) ->
  (sum n (fun i => w i * f i * g i)) ^ 2
  <= sum n (fun i => w i * f i * f i) * sum n (fun i => w i * g i * g i).
Proof.
  intros Hw.
  assert (H : forall t, 0 <= sum n (fun i => w i * g i * g i) * t * t
                           + 2 * sum n (fun i => w i * f i * g i) * t
                           + sum n (fun i => w i * f i * f i)).
  { intros t.
    replace (sum n (fun i => w i * g i * g i) * t * t + 2 * sum n (fun i => w i * f i * g i) * t
             + sum n (fun i => w i * f i * f i))
      with (sum n (fun i => w i * (f i + t * g i) * (f i + t * g i))).
    - apply sum_nonneg. intros i Hi. specialize (Hw i Hi).
      pose proof (Rle_0_sqr (f i + t * g i)). unfold Rsqr in *.
      rewrite Rmult_assoc. apply Rmult_le_pos; assumption.
    - rewrite (sum_ext n (fun i => w i * (f i + t * g i) * (f i + t * g i))
                 (fun i => (w i * g i * g i * (t * t) + 2 * t * (w i * f i * g i))
                           + w i * f i * f i)) by (intros; ring).
      rewrite sum_plus, sum_plus, sum_scal_r, sum_scal_l. ring. }
  assert (Hg : 0 <= sum n (fun i => w i * g i * g i)).
  { apply sum_nonneg. intros i Hi. specialize (Hw i Hi).
    pose proof (Rle_0_sqr (g i)). unfold Rsqr in *.
    rewrite Rmult_assoc. apply Rmult_le_pos; assumption. }
  pose proof (quadratic_nonneg_discriminant _ _ _ Hg H). simpl. lra.
Qed.

(** The unweighted Cauchy–Schwarz inequality. *)
Lemma cauchy_schwarz n f g :
  (sum n (fun i => f i * g i)) ^ 2
  <= sum n (fun i => f i * f i) * sum n (fun i => g i * g i).
Proof.
  pose proof (cauchy_schwarz_weighted n (fun _ => 1) f g ltac:(intros; lra)) as H.
  cbv beta in H.
  rewrite (sum_ext n (fun i => 1 * f i * g i) (fun i => f i * g i)) in H by (intros; ring).
  rewrite (sum_ext n (fun i => 1 * f i * f i) (fun i => f i * f i)) in H by (intros; ring).
  rewrite (sum_ext n (fun i => 1 * g i * g i) (fun i => g i * g i)) in H by (intros; ring).
  exact H.
Qed.
